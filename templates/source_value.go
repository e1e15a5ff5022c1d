package templates

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// sourcePrinter writes the literals valuePrinter builds, as the text go/format
// would print them, straight into a buffer. The registry's big lists (10,000
// tools make 100,000 lines) cost seconds as jennifer trees formatted by
// go/format, which sizes every nested literal once per enclosing level;
// written directly they cost milliseconds. TestSourcePrinterMatchesFormat
// holds the two printers to the same bytes.
//
// Only the types of packages runtime, time and encoding/json can be named;
// print returns an error for others, and the caller falls back to jennifer.
type sourcePrinter struct {
	// field is valuePrinter.field with the replacement as source text.
	field  func(owner reflect.Value, name string) (src string, ok bool)
	consts map[any]string
	// uses collects the import paths the printed text refers to.
	uses map[string]bool
}

// maxLineSize is go/printer's "infinity": a key: value element longer than
// this is laid out as if it spanned lines.
const maxLineSize = 1e6

// literal prints v with its type at indentation depth.
func (p *sourcePrinter) literal(v reflect.Value, depth int) (string, error) {
	var b strings.Builder
	err := p.print(&b, v, false, depth)
	return b.String(), err
}

func (p *sourcePrinter) use(path, name string) string {
	if p.uses == nil {
		p.uses = map[string]bool{}
	}
	p.uses[path] = true
	return name
}

func (p *sourcePrinter) print(b *strings.Builder, v reflect.Value, elide bool, depth int) error {
	t := v.Type()
	switch {
	case t == durationType:
		b.WriteString(p.duration(time.Duration(v.Int())))
		return nil
	case t == rawJSONType:
		b.WriteString(p.use("encoding/json", "json") + ".RawMessage(")
		s := string(v.Bytes())
		if canRaw(s) {
			b.WriteString("`" + s + "`")
		} else {
			b.WriteString(strconv.Quote(s))
		}
		b.WriteString(")")
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		if t.PkgPath() != "" { // only named types have constants
			if c, ok := p.consts[v.Interface()]; ok {
				b.WriteString(c)
				return nil
			}
			name, err := p.typeName(t)
			if err != nil {
				return err
			}
			b.WriteString(name + "(" + strconv.Quote(v.String()) + ")")
			return nil
		}
		b.WriteString(strconv.Quote(v.String()))
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Int64, reflect.Int32, reflect.Int16, reflect.Int8:
		name, err := p.typeName(t)
		if err != nil {
			return err
		}
		b.WriteString(name + "(" + strconv.FormatInt(v.Int(), 10) + ")")
	case reflect.Pointer:
		switch {
		case v.IsNil():
			b.WriteString("nil")
		case v.Elem().Kind() == reflect.Bool: // a *bool hint: new(true), as Go 1.26 allows
			fmt.Fprintf(b, "new(%t)", v.Elem().Bool())
		case elide:
			return p.print(b, v.Elem(), true, depth)
		default:
			b.WriteString("&")
			return p.print(b, v.Elem(), false, depth)
		}
	case reflect.Struct:
		return p.structLit(b, v, elide, depth)
	case reflect.Slice:
		if v.IsNil() {
			b.WriteString("nil")
			return nil
		}
		return p.sliceLit(b, v, elide, depth)
	default:
		return fmt.Errorf("cannot print %s", t)
	}
	return nil
}

// element is one item of a composite literal: "key" is set for a struct
// field.
type element = keyed[string]

func (p *sourcePrinter) structLit(b *strings.Builder, v reflect.Value, elide bool, depth int) error {
	elems, err := fieldLits(v, p.field, func(fv reflect.Value) (string, error) {
		var e strings.Builder
		err := p.print(&e, fv, false, depth+1)
		return e.String(), err
	})
	if err != nil {
		return err
	}
	return p.composite(b, v.Type(), elide, elems, !small(v), depth)
}

func (p *sourcePrinter) sliceLit(b *strings.Builder, v reflect.Value, elide bool, depth int) error {
	elems := make([]element, v.Len())
	for i := range elems {
		var s strings.Builder
		if err := p.print(&s, v.Index(i), true, depth+1); err != nil {
			return err
		}
		elems[i].value = s.String()
	}
	return p.composite(b, v.Type(), elide, elems, sliceMulti(v), depth)
}

// composite writes a composite literal of type t, the type left out when
// elide is set.
func (p *sourcePrinter) composite(b *strings.Builder, t reflect.Type, elide bool, elems []element, multi bool, depth int) error {
	if !elide {
		name, err := p.typeName(t)
		if err != nil {
			return err
		}
		b.WriteString(name)
	}
	return writeComposite(b, elems, multi, depth)
}

// writeComposite writes {elems} as go/printer lays out a literal whose
// elements are on one line (multi false) or one a line: in a run of
// one-line key: value elements the values start in one column, and an
// element spanning lines breaks the run.
func writeComposite(b *strings.Builder, elems []element, multi bool, depth int) error {
	if !multi {
		for _, e := range elems {
			if strings.Contains(e.value, "\n") {
				// go/printer would break the line after it; not worth copying.
				return errMultiLineElement
			}
		}
		b.WriteByte('{')
		for i, e := range elems {
			if i > 0 {
				b.WriteString(", ")
			}
			if e.key != "" {
				b.WriteString(e.key + ": ")
			}
			b.WriteString(e.value)
		}
		b.WriteByte('}')
		return nil
	}
	oneLine := func(i int) bool {
		e := elems[i]
		return len(e.key)+2+len(e.value) <= maxLineSize && !strings.Contains(e.value, "\n")
	}
	writeElements(b, len(elems), func(i int) string { return elems[i].key }, oneLine,
		func(i int) { b.WriteString(elems[i].value) }, depth)
	return nil
}

// textWriter is where source text goes: a strings.Builder, or a buffer
// of the exact size of a big file (index.go).
type textWriter interface {
	io.StringWriter
	io.ByteWriter
}

// writeElements writes the n elements of a composite one a line, laid out
// as writeComposite says; value writes element i's value.
func writeElements(b textWriter, n int, key func(int) string, oneLine func(int) bool, value func(int), depth int) {
	b.WriteString("{\n")
	for i := 0; i < n; {
		// The run of one-line elements starting at i, aligned together.
		j, width := i, 0
		for j < n && key(j) != "" && oneLine(j) {
			width = max(width, len(key(j)))
			j++
		}
		if j == i { // one element spanning lines, or one without a key
			j = i + 1
		}
		for e := i; e < j; e++ {
			writeIndent(b, depth+1)
			if k := key(e); k != "" {
				b.WriteString(k + ":")
				if j-i > 1 || oneLine(e) {
					b.WriteString(strings.Repeat(" ", width-len(k)+1))
				} else {
					b.WriteByte(' ')
				}
			}
			value(e)
			b.WriteString(",\n")
		}
		i = j
	}
	writeIndent(b, depth)
	b.WriteByte('}')
}

var errMultiLineElement = errors.New("an element spanning lines in a one-line literal")

func writeIndent(b textWriter, depth int) {
	for range depth {
		b.WriteByte('\t')
	}
}

// typeName names a type as the generated file does.
func (p *sourcePrinter) typeName(t reflect.Type) (string, error) {
	if t.Name() != "" {
		switch t.PkgPath() {
		case "":
			return t.Name(), nil
		case declPkg:
			return p.use(declPkg, "decl") + "." + t.Name(), nil
		case "time":
			return p.use("time", "time") + "." + t.Name(), nil
		case "encoding/json":
			return p.use("encoding/json", "json") + "." + t.Name(), nil
		}
		return "", fmt.Errorf("cannot name type %s", t)
	}
	switch t.Kind() {
	case reflect.Slice:
		e, err := p.typeName(t.Elem())
		return "[]" + e, err
	case reflect.Pointer:
		e, err := p.typeName(t.Elem())
		return "*" + e, err
	}
	return "", fmt.Errorf("cannot name type %s", t)
}

// duration is durationCode as text.
func (p *sourcePrinter) duration(d time.Duration) string {
	pkg := p.use("time", "time")
	for _, u := range durationUnits {
		if d%u.d == 0 {
			if d == u.d {
				return pkg + "." + u.name
			}
			return strconv.FormatInt(int64(d/u.d), 10) + " * " + pkg + "." + u.name
		}
	}
	return pkg + ".Duration(" + strconv.FormatInt(int64(d), 10) + ")"
}
