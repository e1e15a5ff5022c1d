package model

import (
	"fmt"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// FromDecl is the Config of a spec's model block, its env() parts read
// now through getenv. base_url is optional: an unset variable means the
// provider's own service. A missing api_key or header variable is an
// error naming the model and the variable, never a value.
func FromDecl(d *decl.Model, getenv func(string) (string, bool)) (Config, error) {
	cfg := Config{Label: d.Name, Provider: d.Provider, MaxTokens: d.MaxTokens,
		Temperature: d.Temperature, Timeout: d.Timeout}
	var err error
	if cfg.Name, err = d.ModelName.Resolve(getenv); err != nil {
		return Config{}, fmt.Errorf("model %s: name: %v", d.Name, err)
	}
	cfg.BaseURL, _ = d.BaseURL.Resolve(getenv)
	if cfg.APIKey, err = d.APIKey.Resolve(getenv); err != nil {
		return Config{}, fmt.Errorf("model %s: api_key: %v", d.Name, err)
	}
	if len(d.Headers) > 0 {
		cfg.Headers = make(map[string]string, len(d.Headers))
		for _, kv := range d.Headers {
			if cfg.Headers[kv.Key], err = kv.Value.Resolve(getenv); err != nil {
				return Config{}, fmt.Errorf("model %s: header %s: %v", d.Name, kv.Key, err)
			}
		}
	}
	return cfg, nil
}
