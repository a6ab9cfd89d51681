//! SOCKS5 (RFC 1928) without authentication, CONNECT only: the client names a host (remote DNS, `socks5h`) or an
//! address, and the proxy judges it as any other.

use std::io::{Read, Write};

/// Reply codes.
pub const NOT_ALLOWED: u8 = 0x02;
pub const UNREACHABLE: u8 = 0x04;
pub const REFUSED: u8 = 0x05;
pub const UNSUPPORTED: u8 = 0x07;

/// Reads the greeting (its first byte, the version, already read) and the request; answers the greeting. Returns
/// the host and port asked for, or an error after answering what it could.
///
/// # Errors
/// The stream's error, or InvalidData for a request this proxy does not serve.
pub fn handshake(stream: &mut (impl Read + Write)) -> std::io::Result<(String, u16)> {
    let invalid =
        |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string());
    let mut count = [0u8; 1];
    stream.read_exact(&mut count)?;
    let mut methods = vec![0u8; usize::from(count[0])];
    stream.read_exact(&mut methods)?;
    if !methods.contains(&0) {
        stream.write_all(&[5, 0xff])?;
        return Err(invalid("SOCKS5 without the no-authentication method"));
    }
    stream.write_all(&[5, 0])?;
    let mut request = [0u8; 4];
    stream.read_exact(&mut request)?;
    if request[0] != 5 || request[1] != 1 {
        reply(stream, UNSUPPORTED)?;
        return Err(invalid("only SOCKS5 CONNECT is served"));
    }
    let host = match request[3] {
        1 => {
            let mut ip = [0u8; 4];
            stream.read_exact(&mut ip)?;
            std::net::Ipv4Addr::from(ip).to_string()
        }
        3 => {
            let mut len = [0u8; 1];
            stream.read_exact(&mut len)?;
            let mut name = vec![0u8; usize::from(len[0])];
            stream.read_exact(&mut name)?;
            String::from_utf8(name).map_err(|_| invalid("a host name that is not text"))?
        }
        4 => {
            let mut ip = [0u8; 16];
            stream.read_exact(&mut ip)?;
            std::net::Ipv6Addr::from(ip).to_string()
        }
        _ => {
            reply(stream, 0x08)?;
            return Err(invalid("unknown SOCKS5 address type"));
        }
    };
    let mut port = [0u8; 2];
    stream.read_exact(&mut port)?;
    Ok((host, u16::from_be_bytes(port)))
}

/// Sends a reply with `code` and an empty IPv4 bound address.
///
/// # Errors
/// The stream's error.
pub fn reply(stream: &mut impl Write, code: u8) -> std::io::Result<()> {
    stream.write_all(&[5, code, 0, 1, 0, 0, 0, 0, 0, 0])
}
