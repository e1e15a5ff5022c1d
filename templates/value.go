package templates

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"
)

// valuePrinter prints a Go value (the decl.Registry built by the shared
// IR→runtime mapping) as a composite literal, so the generated registry and
// the in-memory one used by explain and tests cannot disagree.
//
// Zero fields are left out; nil and empty slices differ (a non-nil empty
// slice prints as T{}), because decl.Agent.Allowed gives nil a meaning.
type valuePrinter struct {
	// field, when it returns ok, replaces the printing of one struct field:
	// func values and pointers to data emitted elsewhere (the search index).
	// A nil code with ok leaves the field out.
	field func(owner reflect.Value, name string) (code jen.Code, ok bool)
	// consts names the constant to print for a value of a named string type
	// (decl.KindGo instead of decl.ToolKind("go")).
	consts map[any]jen.Code
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	rawJSONType  = reflect.TypeFor[json.RawMessage]()
)

// literal prints v with its type, as needed where no type can be elided.
func (p *valuePrinter) literal(v reflect.Value) jen.Code { return p.print(v, false) }

// print prints v; elide drops the type of a composite literal, as Go allows
// for elements of a slice literal.
func (p *valuePrinter) print(v reflect.Value, elide bool) jen.Code {
	t := v.Type()
	switch {
	case t == durationType:
		return durationCode(time.Duration(v.Int()))
	case t == rawJSONType:
		return jen.Qual("encoding/json", "RawMessage").Call(rawString(string(v.Bytes())))
	}
	switch t.Kind() {
	case reflect.String:
		if c, ok := p.consts[v.Interface()]; ok {
			return c
		}
		if t.PkgPath() != "" {
			return typeCode(t).Call(jen.Lit(v.String()))
		}
		return jen.Lit(v.String())
	case reflect.Bool:
		return jen.Lit(v.Bool())
	case reflect.Int:
		return jen.Lit(int(v.Int()))
	case reflect.Int64, reflect.Int32, reflect.Int16, reflect.Int8:
		return typeCode(t).Call(jen.Op(strconv.FormatInt(v.Int(), 10)))
	case reflect.Float64:
		return jen.Lit(v.Float())
	case reflect.Pointer:
		if v.IsNil() {
			return jen.Nil()
		}
		if k := v.Elem().Kind(); k != reflect.Struct {
			// &0.2 is no Go; new(0.2) is (Go 1.26), with the value's type.
			return jen.New(typeCode(v.Elem().Type()).Call(p.print(v.Elem(), false)))
		}
		if elide {
			return p.print(v.Elem(), true)
		}
		return jen.Op("&").Add(p.print(v.Elem(), false))
	case reflect.Struct:
		return p.structLit(v, elide)
	case reflect.Slice:
		if v.IsNil() {
			return jen.Nil()
		}
		return p.sliceLit(v, elide)
	}
	panic(fmt.Sprintf("templates: cannot print %s", t))
}

func (p *valuePrinter) structLit(v reflect.Value, elide bool) jen.Code {
	lits, _ := fieldLits(v, p.field, func(fv reflect.Value) (jen.Code, error) { return p.literal(fv), nil })
	fields := make([]jen.Code, len(lits))
	for i, l := range lits {
		fields[i] = jen.Id(l.key).Op(":").Add(l.value)
	}
	return p.composite(v.Type(), elide, fields, !small(v))
}

func (p *valuePrinter) sliceLit(v reflect.Value, elide bool) jen.Code {
	elems := make([]jen.Code, v.Len())
	for i := range elems {
		elems[i] = p.print(v.Index(i), true)
	}
	return p.composite(v.Type(), elide, elems, sliceMulti(v))
}

// composite is a composite literal of type t, the type left out when
// elide is set.
func (p *valuePrinter) composite(t reflect.Type, elide bool, elems []jen.Code, multi bool) jen.Code {
	body := jen.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: multi}, elems...)
	if elide {
		return body
	}
	return typeCode(t).Add(body)
}

// keyed is one item of a composite literal: key is the field's name in a
// struct literal.
type keyed[C any] struct {
	key   string
	value C
}

// fieldLits lists the fields of struct v that its literal sets: override,
// when there is one, answers for the fields it knows (its zero answer
// leaves the field out); any other exported field is printed when set (an
// empty non-nil slice counts as set).
func fieldLits[C comparable](v reflect.Value, override func(owner reflect.Value, name string) (C, bool), print func(reflect.Value) (C, error)) ([]keyed[C], error) {
	t := v.Type()
	var out []keyed[C]
	var none C
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if override != nil {
			if c, ok := override(v, f.Name); ok {
				if c != none {
					out = append(out, keyed[C]{f.Name, c})
				}
				continue
			}
		}
		fv := v.Field(i)
		if fv.IsZero() && !(fv.Kind() == reflect.Slice && !fv.IsNil()) {
			continue
		}
		c, err := print(fv)
		if err != nil {
			return nil, err
		}
		out = append(out, keyed[C]{f.Name, c})
	}
	return out, nil
}

// sliceMulti reports whether a slice literal puts one element a line.
func sliceMulti(v reflect.Value) bool {
	allSmall, allTiny, width := true, true, 0
	for i := range v.Len() {
		e := v.Index(i)
		allSmall = allSmall && small(e)
		allTiny = allTiny && tiny(e)
		if e.Kind() == reflect.String {
			width += len(e.String()) + 4
		}
	}
	elem := v.Type().Elem().Kind()
	structs := elem == reflect.Struct || elem == reflect.Pointer
	return !allSmall || structs && v.Len() > 1 && !(allTiny && v.Len() <= 2) || v.Len() > 8 && width == 0 || width > 80
}

// small reports whether a value reads well on one line: a scalar, or a
// struct of at most two set scalar fields ({Lit: "Bearer "}, {Env: "X"}).
func small(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer:
		return v.IsNil() || small(v.Elem())
	case reflect.Slice:
		return v.Type() == rawJSONType || v.Len() == 0
	case reflect.Struct:
		if v.Type() == durationType {
			return true
		}
		set := 0
		for i := range v.NumField() {
			f := v.Field(i)
			if f.IsZero() || !v.Type().Field(i).IsExported() {
				continue
			}
			if k := f.Kind(); k == reflect.Struct || k == reflect.Func ||
				k == reflect.Slice && f.Type() != rawJSONType && f.Type().Elem().Kind() != reflect.String {
				return false
			}
			set++
		}
		return set <= 2
	}
	return true
}

// tiny reports whether v is a struct of at most two set scalar fields,
// short enough to list a few on one line: decl.Value{{Lit: "Bearer "}, {Env: "TOKEN"}}.
func tiny(v reflect.Value) bool {
	if v.Kind() != reflect.Struct {
		return false
	}
	set := 0
	for i := range v.NumField() {
		f := v.Field(i)
		if f.IsZero() || !v.Type().Field(i).IsExported() {
			continue
		}
		if k := f.Kind(); k != reflect.String && k != reflect.Bool && k != reflect.Int {
			return false
		}
		set++
	}
	return set <= 2
}

// typeCode names a type: qualified when named, built up for slices and pointers.
func typeCode(t reflect.Type) *jen.Statement {
	if t.Name() != "" {
		if t.PkgPath() == "" {
			return jen.Id(t.Name())
		}
		return jen.Qual(t.PkgPath(), t.Name())
	}
	switch t.Kind() {
	case reflect.Slice:
		return jen.Index().Add(typeCode(t.Elem()))
	case reflect.Pointer:
		return jen.Op("*").Add(typeCode(t.Elem()))
	}
	panic(fmt.Sprintf("templates: cannot name type %s", t))
}

// durationUnits are the units durations print in, largest first.
var durationUnits = []struct {
	d    time.Duration
	name string
}{
	{time.Hour, "Hour"}, {time.Minute, "Minute"}, {time.Second, "Second"},
	{time.Millisecond, "Millisecond"}, {time.Microsecond, "Microsecond"},
}

// durationCode prints a duration in its largest exact unit: 30 * time.Second.
func durationCode(d time.Duration) jen.Code {
	for _, u := range durationUnits {
		if d%u.d == 0 {
			if d == u.d {
				return jen.Qual("time", u.name)
			}
			return jen.Lit(int(d/u.d)).Op("*").Qual("time", u.name)
		}
	}
	return jen.Qual("time", "Duration").Call(jen.Op(strconv.FormatInt(int64(d), 10)))
}

// rawString prints s as a raw string literal when it can be one (JSON
// schemas read better without escapes), else as a quoted literal.
func rawString(s string) jen.Code {
	if !canRaw(s) {
		return jen.Lit(s)
	}
	return jen.Op("`" + s + "`")
}

// canRaw reports whether s can be a raw string literal that reads as s.
func canRaw(s string) bool {
	return !strings.ContainsAny(s, "`\r") && utf8.ValidString(s) && isPrintable(s)
}

func isPrintable(s string) bool {
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r == '\uFEFF' {
			return false
		}
	}
	return true
}
