// Package gotools holds Go function tools, good and bad, for the tests of
// templates.LoadGoTools.
package gotools

import (
	"context"
	"encoding/json"
	"time"
)

// Inner is nested in Args.
type Inner struct {
	// Label names the inner thing.
	Label string `json:"label"`
	Count uint8  `json:"count,omitempty"`
}

// Embedded fields are flattened into Args.
type Embedded struct {
	Flat string `json:"flat"`
}

// Args exercises the schema conventions.
type Args struct {
	Embedded
	// Query is what to look for.
	Query    string            `json:"query" jsonschema:"minLength=1,maxLength=200,pattern=^[a-z ]+$"`
	Limit    int               `json:"limit,omitempty" jsonschema:"minimum=1,maximum=100,default=10"`
	Ratio    float64           `json:"ratio,omitempty" jsonschema:"exclusiveMinimum=0"`
	Mode     string            `json:"mode" jsonschema:"enum=fast,enum=slow,title=Mode"`
	Tags     []string          `json:"tags,omitempty" jsonschema:"minItems=1,uniqueItems=true"`
	Labels   map[string]string `json:"labels,omitempty"`
	Anything map[string]any    `json:"anything,omitempty"`
	Inner    Inner             `json:"inner"`
	Ptr      *Inner            `json:"ptr,omitempty"`
	When     time.Time         `json:"when,omitempty"`
	Raw      json.RawMessage   `json:"raw,omitempty"`
	Blob     []byte            `json:"blob,omitempty"`
	Pair     [2]int            `json:"pair,omitempty"`
	Quoted   int               `json:"quoted,string,omitempty"`
	Forced   string            `json:"forced,omitempty" jsonschema:"required"`
	Desc     string            `json:"desc,omitempty" jsonschema_description:"From the description tag"`
	Comma    string            `json:"comma,omitempty" jsonschema:"description=one\\, two"`
	NoTag    bool
	Skipped  string `json:"-"`
	hidden   string
}

// Good has the accepted signature.
func Good(ctx context.Context, a Args) (map[string]any, error) { return nil, nil }

func NoContext(a Args, b int) (string, error) { return "", nil }

func NotStruct(ctx context.Context, n int) (string, error) { return "", nil }

func OneResult(ctx context.Context, a Args) error { return nil }

func NoError(ctx context.Context, a Args) (string, string) { return "", "" }

func ChanResult(ctx context.Context, a Args) (chan int, error) { return nil, nil }

type unexportedArgs struct{ X int }

func Unexported(ctx context.Context, a unexportedArgs) (int, error) { return 0, nil }

// Recursive refers to itself.
type Recursive struct {
	Next *Recursive `json:"next"`
}

func Recurse(ctx context.Context, a Recursive) (int, error) { return 0, nil }

// BadTag has a tag keyword the schema builder does not know.
type BadTag struct {
	X int `json:"x" jsonschema:"oneof_type=string;integer"`
}

func WithBadTag(ctx context.Context, a BadTag) (int, error) { return 0, nil }

// Generic is rejected: the wrapper needs one concrete Args type.
func Generic[T any](ctx context.Context, a T) (int, error) { return 0, nil }

var NotAFunc = 3

// SDKArgs uses go-sdk's tag convention: the whole jsonschema tag is the
// description.
type SDKArgs struct {
	Path  string `json:"path" jsonschema:"the path to read, relative to the workspace"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many lines"`
}

// SDKTagged takes go-sdk-style arguments.
func SDKTagged(ctx context.Context, a SDKArgs) (string, error) { return "", nil }
