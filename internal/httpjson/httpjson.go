// Package httpjson reads small JSON documents over HTTP (authorization
// server metadata, key sets): for the OAuth client and the JWT verifier,
// which are linked apart.
package httpjson

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// MaxBytes is the most of a document read.
const MaxBytes = 1 << 20

// Get reads the JSON document at u into v; at most MaxBytes of it.
func Get(ctx context.Context, c *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, MaxBytes)).Decode(v); err != nil {
		return fmt.Errorf("%s: %w", u, err)
	}
	return nil
}
