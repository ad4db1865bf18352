package actkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// ForContainers returns rawURL, the URL of a server of the test on this machine (httptest's, on
// 127.0.0.1), as containers on Docker's default bridge network reach it: through a forwarder on
// the bridge's gateway, the host's own address on that network, which lives as long as the
// test. Processes on the host, and containers on the host's network (act's jobs), reach that
// address too. The server itself still sees every request, from the forwarder.
func ForContainers(t testing.TB, rawURL string) string {
	t.Helper()
	RequireDocker(t)
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatalf("ForContainers(%q): %v", rawURL, err)
	}
	gateway, err := bridgeGateway(t)
	if err != nil {
		t.Fatalf("ForContainers: %v", err)
	}
	l, err := net.Listen("tcp", net.JoinHostPort(gateway, "0"))
	if err != nil {
		t.Fatalf("ForContainers: listen on the bridge's gateway: %v", err)
	}
	f := &forwarder{l: l, target: u.Host, conns: map[net.Conn]bool{}}
	go f.serve()
	t.Cleanup(f.close)
	u.Host = l.Addr().String()
	return u.String()
}

// bridgeGateway is the gateway of Docker's default bridge network, as the engine reports it.
func bridgeGateway(t testing.TB) (string, error) {
	var network struct {
		IPAM    struct{ Config []struct{ Gateway string } }
		Options map[string]string
	}
	if err := json.Unmarshal(engineRead(t, "/networks/bridge"), &network); err != nil {
		return "", fmt.Errorf("inspect the bridge network: %w", err)
	}
	for _, c := range network.IPAM.Config {
		if ip := net.ParseIP(c.Gateway); ip != nil && ip.To4() != nil {
			return c.Gateway, nil
		}
	}
	// The default bridge may not name its gateway: it is the address of its interface here.
	name := network.Options["com.docker.network.bridge.name"]
	if name == "" {
		name = "docker0"
	}
	iface, err := net.InterfaceByName(name)
	if err != nil {
		return "", fmt.Errorf("the bridge network names no gateway, and its interface: %w", err)
	}
	addrs, err := iface.Addrs()
	if err != nil {
		return "", fmt.Errorf("the addresses of %s: %w", name, err)
	}
	for _, a := range addrs {
		if ipnet, ok := a.(*net.IPNet); ok && ipnet.IP.To4() != nil {
			return ipnet.IP.String(), nil
		}
	}
	return "", errors.New("the bridge network has no IPv4 gateway")
}

// forwarder copies each connection it accepts to and from target.
type forwarder struct {
	l      net.Listener
	target string
	mu     sync.Mutex
	conns  map[net.Conn]bool
	wg     sync.WaitGroup
}

func (f *forwarder) serve() {
	for {
		c, err := f.l.Accept()
		if err != nil {
			return // closed
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.relay(c)
		}()
	}
}

func (f *forwarder) relay(c net.Conn) {
	up, err := net.Dial("tcp", f.target)
	if err != nil {
		c.Close()
		return
	}
	if !f.track(c, up) {
		return
	}
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		io.Copy(dst, src)
		if tc, ok := dst.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
		done <- struct{}{}
	}
	go pipe(up, c)
	go pipe(c, up)
	<-done
	<-done
	f.untrack(c, up)
}

// track records the pair for close; false, with both closed, once the forwarder is closed.
func (f *forwarder) track(cs ...net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.conns == nil {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	for _, c := range cs {
		f.conns[c] = true
	}
	return true
}

func (f *forwarder) untrack(cs ...net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range cs {
		c.Close()
		delete(f.conns, c)
	}
}

func (f *forwarder) close() {
	f.l.Close()
	f.mu.Lock()
	for c := range f.conns {
		c.Close()
	}
	f.conns = nil
	f.mu.Unlock()
	f.wg.Wait()
}
