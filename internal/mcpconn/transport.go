package mcpconn

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// link is what one connection attempt needs besides the go-sdk session: the
// transport to hand to Client.Connect, and how to release what it holds
// (a process group, idle HTTP connections) once the session is closed.
type link struct {
	transport mcp.Transport
	proc      *process        // stdio only
	http      *http.Transport // http, sse, ws
}

func (l *link) release() {
	if l.proc != nil {
		l.proc.stop()
	}
	if l.http != nil {
		l.http.CloseIdleConnections()
	}
}

// newLink prepares a transport for cfg. For stdio it starts the process.
func newLink(cfg *Config, onStderr, onGarbage func(string)) (*link, error) {
	switch cfg.Transport {
	case TransportStdio, "":
		p, err := startProcess(cfg, onStderr)
		if err != nil {
			return nil, err
		}
		return &link{transport: p.transport(cfg.maxMessageBytes(), onGarbage), proc: p}, nil
	case TransportHTTP:
		ht, client := httpClient(cfg)
		// The go-sdk resumes a broken SSE stream itself (Last-Event-ID). Two
		// tries cover a server closing a stream on purpose; more would hide
		// a dead server for long (5 tries: ~17 s) from the Manager, which
		// reconnects the whole session.
		return &link{http: ht, transport: &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client, MaxRetries: 2, OAuthHandler: cfg.OAuth}}, nil
	case TransportSSE:
		ht, client := httpClient(cfg)
		if cfg.OAuth != nil {
			client.Transport = OAuthTransport(cfg.OAuth, cfg.URL, client.Transport)
		}
		return &link{http: ht, transport: &mcp.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: client}}, nil
	case TransportWS:
		if dialWebSocket == nil {
			return nil, webSocketNotLinked(cfg.Name)
		}
		ht, client := httpClient(cfg)
		// Dial sets the headers itself; the round tripper would add them again.
		client.Transport = ht
		h := http.Header{}
		for k, v := range cfg.Headers {
			h.Set(k, v)
		}
		return &link{http: ht, transport: dialWebSocket(cfg.URL, h, client, int64(cfg.maxMessageBytes()))}, nil
	case TransportTCP:
		return &link{transport: &tcpTransport{address: cfg.Address, maxMessage: cfg.maxMessageBytes()}}, nil
	}
	return nil, cfg.validate()
}

// httpClient gives each connection its own pool, so that closing the
// connection closes its sockets, and injects the configured headers.
func httpClient(cfg *Config) (*http.Transport, *http.Client) {
	ht := http.DefaultTransport.(*http.Transport).Clone()
	var rt http.RoundTripper = ht
	if len(cfg.Headers) > 0 {
		ht := &headerTransport{base: ht, headers: cfg.Headers}
		if u, err := url.Parse(cfg.URL); err == nil {
			ht.scheme, ht.host = u.Scheme, u.Host
		}
		rt = ht
	}
	return ht, &http.Client{Transport: rt}
}

// headerTransport sets fixed headers (Authorization and the like) on the
// requests the go-sdk makes to the configured origin, and on no other: a
// redirect elsewhere must not carry the server's credentials.
type headerTransport struct {
	base         http.RoundTripper
	headers      map[string]string
	scheme, host string
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.EqualFold(req.URL.Scheme, t.scheme) || !strings.EqualFold(req.URL.Host, t.host) {
		return t.base.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	return t.base.RoundTrip(req)
}

// tcpTransport dials a TCP address and speaks newline-delimited JSON-RPC,
// the stdio framing, over the stream.
type tcpTransport struct {
	address    string
	maxMessage int
}

func (t *tcpTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", t.address)
	if err != nil {
		return nil, err
	}
	io := &mcp.IOTransport{Reader: c, Writer: writeOnly{c}, MaxLineLength: t.maxMessage}
	return io.Connect(ctx)
}

// writeOnly keeps the go-sdk from closing the socket twice: the reader side
// owns Close.
type writeOnly struct{ w io.Writer }

func (w writeOnly) Write(p []byte) (int, error) { return w.w.Write(p) }
func (writeOnly) Close() error                  { return nil }
