package rest

import (
	"testing"

	"github.com/yosida95/uritemplate/v3"
)

// rfcValues are the variables of RFC 6570 §3.2.
func rfcValues() uritemplate.Values {
	v := uritemplate.Values{}
	v.Set("count", uritemplate.List("one", "two", "three"))
	v.Set("dom", uritemplate.List("example", "com"))
	v.Set("dub", uritemplate.String("me/too"))
	v.Set("hello", uritemplate.String("Hello World!"))
	v.Set("half", uritemplate.String("50%"))
	v.Set("var", uritemplate.String("value"))
	v.Set("who", uritemplate.String("fred"))
	v.Set("base", uritemplate.String("http://example.com/home/"))
	v.Set("path", uritemplate.String("/foo/bar"))
	v.Set("list", uritemplate.List("red", "green", "blue"))
	v.Set("keys", uritemplate.KV("semi", ";", "dot", ".", "comma", ","))
	v.Set("v", uritemplate.String("6"))
	v.Set("x", uritemplate.String("1024"))
	v.Set("y", uritemplate.String("768"))
	v.Set("empty", uritemplate.String(""))
	v.Set("empty_keys", uritemplate.KV())
	return v
}

// The examples of RFC 6570 §3.2, each also compared with uritemplate's own expansion, which is
// right for ASCII.
var rfcExamples = [][2]string{
	{"{count}", "one,two,three"}, {"{count*}", "one,two,three"}, {"{/count}", "/one,two,three"},
	{"{/count*}", "/one/two/three"}, {"{;count}", ";count=one,two,three"},
	{"{;count*}", ";count=one;count=two;count=three"}, {"{?count}", "?count=one,two,three"},
	{"{?count*}", "?count=one&count=two&count=three"}, {"{&count*}", "&count=one&count=two&count=three"},
	{"{var}", "value"}, {"{hello}", "Hello%20World%21"}, {"{half}", "50%25"}, {"O{empty}X", "OX"},
	{"O{undef}X", "OX"}, {"{x,y}", "1024,768"}, {"{x,hello,y}", "1024,Hello%20World%21,768"},
	{"?{x,empty}", "?1024,"}, {"?{x,undef}", "?1024"}, {"?{undef,y}", "?768"}, {"{var:3}", "val"},
	{"{var:30}", "value"}, {"{list}", "red,green,blue"}, {"{list*}", "red,green,blue"},
	{"{keys}", "semi,%3B,dot,.,comma,%2C"}, {"{keys*}", "semi=%3B,dot=.,comma=%2C"},
	{"{+var}", "value"}, {"{+hello}", "Hello%20World!"}, {"{+half}", "50%25"},
	{"{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"}, {"{+base}index", "http://example.com/home/index"},
	{"O{+empty}X", "OX"}, {"{+path}/here", "/foo/bar/here"}, {"here?ref={+path}", "here?ref=/foo/bar"},
	{"up{+path}{var}/here", "up/foo/barvalue/here"}, {"{+x,hello,y}", "1024,Hello%20World!,768"},
	{"{+path,x}/here", "/foo/bar,1024/here"}, {"{+path:6}/here", "/foo/b/here"}, {"{+list}", "red,green,blue"},
	{"{+list*}", "red,green,blue"}, {"{+keys}", "semi,;,dot,.,comma,,"}, {"{+keys*}", "semi=;,dot=.,comma=,"},
	{"{#var}", "#value"}, {"{#hello}", "#Hello%20World!"}, {"{#half}", "#50%25"}, {"foo{#empty}", "foo#"},
	{"foo{#undef}", "foo"}, {"{#x,hello,y}", "#1024,Hello%20World!,768"}, {"{#path,x}/here", "#/foo/bar,1024/here"},
	{"{#path:6}/here", "#/foo/b/here"}, {"{#list}", "#red,green,blue"}, {"{#list*}", "#red,green,blue"},
	{"{#keys}", "#semi,;,dot,.,comma,,"}, {"{#keys*}", "#semi=;,dot=.,comma=,"},
	{"{.who}", ".fred"}, {"{.who,who}", ".fred.fred"}, {"{.half,who}", ".50%25.fred"}, {"www{.dom*}", "www.example.com"},
	{"X{.var}", "X.value"}, {"X{.empty}", "X."}, {"X{.undef}", "X"}, {"X{.var:3}", "X.val"},
	{"X{.list}", "X.red,green,blue"}, {"X{.list*}", "X.red.green.blue"}, {"X{.keys}", "X.semi,%3B,dot,.,comma,%2C"},
	{"X{.keys*}", "X.semi=%3B.dot=..comma=%2C"}, {"X{.empty_keys}", "X"}, {"X{.empty_keys*}", "X"},
	{"{/who}", "/fred"}, {"{/who,who}", "/fred/fred"}, {"{/half,who}", "/50%25/fred"}, {"{/who,dub}", "/fred/me%2Ftoo"},
	{"{/var}", "/value"}, {"{/var,empty}", "/value/"}, {"{/var,undef}", "/value"}, {"{/var,x}/here", "/value/1024/here"},
	{"{/var:1,var}", "/v/value"}, {"{/list}", "/red,green,blue"}, {"{/list*}", "/red/green/blue"},
	{"{/list*,path:4}", "/red/green/blue/%2Ffoo"}, {"{/keys}", "/semi,%3B,dot,.,comma,%2C"},
	{"{/keys*}", "/semi=%3B/dot=./comma=%2C"},
	{"{;who}", ";who=fred"}, {"{;half}", ";half=50%25"}, {"{;empty}", ";empty"}, {"{;v,empty,who}", ";v=6;empty;who=fred"},
	{"{;v,bar,who}", ";v=6;who=fred"}, {"{;x,y}", ";x=1024;y=768"}, {"{;x,y,empty}", ";x=1024;y=768;empty"},
	{"{;x,y,undef}", ";x=1024;y=768"}, {"{;hello:5}", ";hello=Hello"}, {"{;list}", ";list=red,green,blue"},
	{"{;list*}", ";list=red;list=green;list=blue"}, {"{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"},
	{"{;keys*}", ";semi=%3B;dot=.;comma=%2C"},
	{"{?who}", "?who=fred"}, {"{?half}", "?half=50%25"}, {"{?x,y}", "?x=1024&y=768"}, {"{?x,y,empty}", "?x=1024&y=768&empty="},
	{"{?x,y,undef}", "?x=1024&y=768"}, {"{?var:3}", "?var=val"}, {"{?list}", "?list=red,green,blue"},
	{"{?list*}", "?list=red&list=green&list=blue"}, {"{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"},
	{"{?keys*}", "?semi=%3B&dot=.&comma=%2C"},
	{"{&who}", "&who=fred"}, {"{&half}", "&half=50%25"}, {"?fixed=yes{&x}", "?fixed=yes&x=1024"},
	{"{&x,y,empty}", "&x=1024&y=768&empty="}, {"{&var:3}", "&var=val"}, {"{&list}", "&list=red,green,blue"},
	{"{&list*}", "&list=red&list=green&list=blue"}, {"{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"},
	{"{&keys*}", "&semi=%3B&dot=.&comma=%2C"},
}

func TestExpandRFC6570(t *testing.T) {
	values := rfcValues()
	for _, ex := range rfcExamples {
		tmpl, err := uritemplate.New(ex[0])
		if err != nil {
			t.Fatalf("%s: %v", ex[0], err)
		}
		got := expandTemplate(compileTemplate(ex[0]), values)
		if got != ex[1] {
			t.Errorf("%s = %q, want %q", ex[0], got, ex[1])
		}
		if lib, err := tmpl.Expand(values); err != nil || lib != got {
			t.Errorf("%s: uritemplate gives %q, %v; we give %q", ex[0], lib, err, got)
		}
	}
}

// Non-ASCII values are encoded as UTF-8 bytes (RFC 6570 §1.6), and prefixes count characters.
func TestExpandUTF8(t *testing.T) {
	v := uritemplate.Values{}
	v.Set("city", uritemplate.String("São Paulo"))
	v.Set("mix", uritemplate.String("é/ဤ?"))
	v.Set("pre", uritemplate.String("éab"))
	v.Set("pairs", uritemplate.KV("k", "", "z", "1"))
	for tmpl, want := range map[string]string{
		"{city}":            "S%C3%A3o%20Paulo",
		"{mix}":             "%C3%A9%2F%E1%80%A4%3F",
		"{+mix}":            "%C3%A9/%E1%80%A4?",
		"{?city}":           "?city=S%C3%A3o%20Paulo",
		"{pre:2}":           "%C3%A9a",
		"{pairs*}":          "k=,z=1",
		"{?pairs*}":         "?k=&z=1",
		"{;pairs*}":         ";k;z=1",
		"/caf%C3%A9/{city}": "/caf%C3%A9/S%C3%A3o%20Paulo",
	} {
		if got := expandTemplate(compileTemplate(tmpl), v); got != want {
			t.Errorf("%s = %q, want %q", tmpl, got, want)
		}
	}
}
