package rest

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/yosida95/uritemplate/v3"
)

// templateVars returns the template's variables and which of them are optional: those that
// only appear in query expansions ({?q} and {&q}), which RFC 6570 simply leaves out when
// undefined. Every other variable is part of the path or host and must be given.
func templateVars(segs []segment) (all []string, optional map[string]bool) {
	optional = map[string]bool{}
	required := map[string]bool{}
	for _, seg := range segs {
		for _, v := range seg.vars {
			if !slices.Contains(all, v.name) {
				all = append(all, v.name)
			}
			if seg.query {
				optional[v.name] = true
			} else {
				required[v.name] = true
			}
		}
	}
	for name := range required {
		delete(optional, name)
	}
	return all, optional
}

// templateValue converts one JSON argument into a URI template value: scalars become strings,
// arrays of scalars lists, and objects of scalars key/value pairs (sorted by key). Null is
// undefined and reported as ok == false.
func templateValue(name string, raw json.RawMessage) (v uritemplate.Value, ok bool, err error) {
	val, err := decodeValue(raw)
	if err != nil {
		return v, false, fmt.Errorf("argument %q: %v", name, err)
	}
	switch x := val.(type) {
	case nil:
		return v, false, nil
	case []any:
		items := make([]string, 0, len(x))
		for _, item := range x {
			s, isScalar := scalarText(item)
			if !isScalar {
				return v, false, fmt.Errorf("argument %q: an array used in the URL may hold only strings, numbers and booleans", name)
			}
			items = append(items, s)
		}
		if len(items) == 0 {
			return v, false, nil
		}
		return uritemplate.List(items...), true, nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		kv := make([]string, 0, 2*len(keys))
		for _, k := range keys {
			s, isScalar := scalarText(x[k])
			if !isScalar {
				return v, false, fmt.Errorf("argument %q: an object used in the URL may hold only strings, numbers and booleans", name)
			}
			kv = append(kv, k, s)
		}
		if len(kv) == 0 {
			return v, false, nil
		}
		return uritemplate.KV(kv...), true, nil
	}
	s, _ := scalarText(val)
	return uritemplate.String(s), true, nil
}

// scalarText renders a decoded JSON scalar as URL text; numbers keep their JSON spelling.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		if x {
			return "true", true
		}
		return "false", true
	}
	return "", false
}
