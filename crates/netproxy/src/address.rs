//! Which addresses a name may lead to: never loopback, unspecified, link-local, the cloud metadata address,
//! multicast, broadcast, a private or shared range, or one of the host's own addresses — unless the allow entry
//! names the address itself as an IP literal.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why `ip` may not be dialed for a name, or None when it may. `own` lists the host's own addresses.
pub fn forbidden(ip: IpAddr, own: &[IpAddr]) -> Option<&'static str> {
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    if ip == IpAddr::V4(Ipv4Addr::new(169, 254, 169, 254)) || ip == IpAddr::V6(METADATA_V6) {
        return Some("the cloud metadata address");
    }
    let kind = match ip {
        IpAddr::V4(v4) => v4_kind(v4),
        IpAddr::V6(v6) => v6_kind(v6),
    };
    kind.or_else(|| own.contains(&ip).then_some("an address of this host"))
}

/// fd00:ec2::254, the metadata service's IPv6 address.
const METADATA_V6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254);

fn v4_kind(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() {
        Some("a loopback address")
    } else if ip.is_unspecified() || a == 0 {
        Some("an unspecified address")
    } else if ip.is_link_local() {
        Some("a link-local address")
    } else if ip.is_multicast() || ip.is_broadcast() || a >= 240 {
        Some("a multicast or reserved address")
    } else if ip.is_private()
        || (a == 100 && (64..128).contains(&b))
        || (a == 198 && (18..20).contains(&b))
    {
        Some("a private address")
    } else {
        None
    }
}

fn v6_kind(ip: Ipv6Addr) -> Option<&'static str> {
    let first = ip.segments()[0];
    if ip.is_loopback() {
        Some("a loopback address")
    } else if ip.is_unspecified() {
        Some("an unspecified address")
    } else if first & 0xffc0 == 0xfe80 {
        Some("a link-local address")
    } else if ip.is_multicast() {
        Some("a multicast or reserved address")
    } else if first & 0xfe00 == 0xfc00 || first & 0xffc0 == 0xfec0 {
        Some("a private address")
    } else if let Some(v4) = embedded_v4(ip) {
        v4_kind(v4)
    } else {
        None
    }
}

/// The IPv4 address inside an IPv4-compatible, NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let v4 = |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    if s[..6] == [0; 6] || s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        Some(v4(s[6], s[7]))
    } else if s[0] == 0x2002 {
        Some(v4(s[1], s[2]))
    } else {
        None
    }
}

/// The host's own addresses (every interface's), read once when the proxy starts.
pub fn own_addresses() -> Vec<IpAddr> {
    let mut list = Vec::new();
    let mut head: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs writes a list head we free below with freeifaddrs.
    if unsafe { libc::getifaddrs(&mut head) } != 0 {
        return list;
    }
    let mut cursor = head;
    while !cursor.is_null() {
        // SAFETY: `cursor` is a node of the list getifaddrs returned, valid until freeifaddrs.
        let node = unsafe { &*cursor };
        if !node.ifa_addr.is_null() {
            // SAFETY: ifa_addr points at a sockaddr whose family says which struct it is.
            match i32::from(unsafe { (*node.ifa_addr).sa_family }) {
                libc::AF_INET => {
                    // SAFETY: the family is AF_INET, so it is a sockaddr_in.
                    let sin = unsafe { &*(node.ifa_addr as *const libc::sockaddr_in) };
                    list.push(IpAddr::V4(Ipv4Addr::from(u32::from_be(
                        sin.sin_addr.s_addr,
                    ))));
                }
                libc::AF_INET6 => {
                    // SAFETY: the family is AF_INET6, so it is a sockaddr_in6.
                    let sin6 = unsafe { &*(node.ifa_addr as *const libc::sockaddr_in6) };
                    list.push(IpAddr::V6(Ipv6Addr::from(sin6.sin6_addr.s6_addr)));
                }
                _ => {}
            }
        }
        cursor = node.ifa_next;
    }
    // SAFETY: `head` came from getifaddrs and is freed once.
    unsafe { libc::freeifaddrs(head) };
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(ip: &str) -> Option<&'static str> {
        forbidden(ip.parse().unwrap(), &[])
    }

    #[test]
    fn refuses_every_internal_range_in_every_spelling() {
        for ip in [
            "127.0.0.1",
            "127.9.9.9",
            "::1",
            "::ffff:127.0.0.1",
            "::127.0.0.1",
            "64:ff9b::7f00:1",
            "2002:7f00:1::",
        ] {
            assert_eq!(why(ip), Some("a loopback address"), "{ip}");
        }
        for ip in ["169.254.169.254", "fd00:ec2::254", "::ffff:169.254.169.254"] {
            assert_eq!(why(ip), Some("the cloud metadata address"), "{ip}");
        }
        for ip in [
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "100.64.0.1",
            "fd12::1",
            "fc00::1",
        ] {
            assert_eq!(why(ip), Some("a private address"), "{ip}");
        }
        for ip in ["169.254.1.1", "fe80::1"] {
            assert_eq!(why(ip), Some("a link-local address"), "{ip}");
        }
        for ip in ["0.0.0.0", "::"] {
            assert_eq!(why(ip), Some("an unspecified address"), "{ip}");
        }
        for ip in ["224.0.0.1", "255.255.255.255", "ff02::1"] {
            assert_eq!(why(ip), Some("a multicast or reserved address"), "{ip}");
        }
        for ip in ["93.184.216.34", "2606:4700::1111", "8.8.8.8"] {
            assert_eq!(why(ip), None, "{ip}");
        }
        let own: IpAddr = "93.184.216.34".parse().unwrap();
        assert_eq!(forbidden(own, &[own]), Some("an address of this host"));
    }
}
