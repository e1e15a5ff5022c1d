package statuspage

import (
	"mime"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// hostAllowed: the Host is a loopback name or one of Options.Hosts, or,
// for a probe, any IP address. A browser sends the name it resolved, so a
// page on a rebound DNS name (evil.example → 127.0.0.1) is refused even
// though it reached the loopback listener and counts as same-origin to the
// browser. An IP address is no rebinding (the page's origin would be that
// address), and a supervisor probes a pod or host by its address.
func (h *Handler) hostAllowed(hostport string, probe bool) bool {
	host := hostport
	if hst, _, err := net.SplitHostPort(hostport); err == nil {
		host = hst
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if host == "" && probe {
		// HTTP/1.0 health checkers (HAProxy's httpchk) send no Host; a
		// browser always does, so no rebound page can send this.
		return true
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	if ip, err := netip.ParseAddr(host); err == nil && (probe || ip.Unmap().IsLoopback()) {
		return true
	}
	return slices.ContainsFunc(h.hosts, func(a string) bool { return a == "*" || strings.EqualFold(a, host) })
}

// sameOrigin refuses what another site in the user's browser could send:
// a request without an Origin, or with another one than the page's own
// (scheme and Host of this request), or one the browser marks as coming
// from elsewhere. Returns the reason, or "".
func sameOrigin(r *http.Request) string {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return "an Origin header is required"
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if want := scheme + "://" + r.Host; !strings.EqualFold(origin, want) {
		return "origin " + quote(origin) + " is not this page's origin " + quote(want)
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return "the browser says this request comes from another site (Sec-Fetch-Site: " + site + ")"
	}
	return ""
}

// isJSON reports whether the request body is declared JSON. A form or a
// no-cors fetch from another site cannot declare it without a preflight,
// which this server never grants.
func isJSON(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "application/json"
}

// quote quotes a client-sent value for an error message, cut short.
func quote(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return strconv.Quote(s)
}

// isProbe: the paths supervisors and scrapers ask.
func isProbe(path string) bool {
	return path == "/healthz" || path == "/readyz" || path == "/metrics"
}
