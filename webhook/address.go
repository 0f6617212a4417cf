package webhook

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// AddressPolicy says where deliveries may go. Unless AllowPrivate, a
// loopback, private, link-local (cloud metadata at 169.254.169.254 among
// them), shared, unspecified or multicast address is refused. The check
// runs on the address the client actually dials (Control of its
// net.Dialer), after DNS resolution, so a name that resolves to a private
// address — first or on a later lookup — is refused too.
type AddressPolicy struct {
	AllowPrivate bool
}

// ErrPrivateAddress: a delivery would go to an address the policy refuses.
var ErrPrivateAddress = errors.New("private address")

// sharedAddressSpace is 100.64.0.0/10 (carrier-grade NAT), private in practice.
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// CheckIP refuses an address the policy does not allow.
func (p AddressPolicy) CheckIP(ip netip.Addr) error {
	if p.AllowPrivate {
		return nil
	}
	ip = ip.Unmap()
	var kind string
	switch {
	case ip.IsLoopback():
		kind = "loopback"
	case ip.IsPrivate(), sharedAddressSpace.Contains(ip):
		kind = "private"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		kind = "link-local (cloud metadata)"
	case ip.IsUnspecified():
		kind = "unspecified"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		kind = "multicast"
	default:
		return nil
	}
	return fmt.Errorf("%w: %s is a %s address; the operator allows such URLs with --webhook-allow-private", ErrPrivateAddress, ip, kind)
}

// CheckURL refuses, when a subscription is made, a URL whose host is an IP
// literal or localhost the policy refuses. Names are checked when dialed.
func (p AddressPolicy) CheckURL(u *url.URL) error {
	if p.AllowPrivate {
		return nil
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return fmt.Errorf("%w: %s is a loopback name; the operator allows such URLs with --webhook-allow-private", ErrPrivateAddress, host)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return p.CheckIP(ip)
	}
	return nil
}

// control is the net.Dialer Control hook: it sees the resolved address
// of every connection just before it is made.
func (p AddressPolicy) control(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return err
	}
	return p.CheckIP(ip)
}
