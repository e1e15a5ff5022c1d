// Package frontmatter reads the YAML frontmatter of a SKILL.md and compares
// it with the frontmatter a Skills server listed for it (SEP-2640: a host
// parses the fetched file's frontmatter and refuses the skill on any
// difference from the entry it holds).
package frontmatter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Text is the YAML between a file's opening --- line and the next ---
// line; ok is false when the file does not start with frontmatter.
func Text(src []byte) (body []byte, ok bool) {
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	first, rest, found := bytes.Cut(src, []byte("\n"))
	if !found || strings.TrimRight(string(first), " \t\r") != "---" {
		return nil, false
	}
	for len(rest) > 0 {
		line, next, _ := bytes.Cut(rest, []byte("\n"))
		if strings.TrimRight(string(line), " \t\r") == "---" {
			return body, true
		}
		body = append(append(body, line...), '\n')
		rest = next
	}
	return nil, false
}

// Fields parses a SKILL.md's frontmatter into JSON values (objects,
// arrays, strings, float64 numbers, booleans, nil), so that it compares
// with a listed entry decoded from JSON.
func Fields(src []byte) (map[string]any, error) {
	body, ok := Text(src)
	if !ok {
		return nil, errors.New("SKILL.md does not start with YAML frontmatter between --- lines")
	}
	var m map[string]any
	if err := yaml.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("SKILL.md frontmatter is not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if m == nil {
		return nil, errors.New("SKILL.md frontmatter is empty")
	}
	// Through JSON: YAML's ints and nested maps become what a JSON
	// entry decodes to.
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("SKILL.md frontmatter has a value JSON cannot carry: %w", err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Compare checks a SKILL.md's frontmatter field by field against the
// listed one; the error names the first field (sorted) that differs.
func Compare(src []byte, listed json.RawMessage) error {
	got, err := Fields(src)
	if err != nil {
		return err
	}
	var want map[string]any
	if err := json.Unmarshal(listed, &want); err != nil || want == nil {
		return errors.New("the listed frontmatter is not a JSON object")
	}
	keys := make([]string, 0, len(got)+len(want))
	for k := range got {
		keys = append(keys, k)
	}
	for k := range want {
		if _, dup := got[k]; !dup {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		g, inFile := got[k]
		w, inList := want[k]
		switch {
		case !inFile:
			return fmt.Errorf("frontmatter field %q is listed but not in SKILL.md", k)
		case !inList:
			return fmt.Errorf("frontmatter field %q is in SKILL.md but not listed", k)
		case !reflect.DeepEqual(g, w):
			return fmt.Errorf("frontmatter field %q differs from the listed one", k)
		}
	}
	return nil
}
