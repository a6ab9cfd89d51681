//! Bytes both ways between a client and the server dialed for it, until both directions end.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};

/// Bytes moved per read: large enough that a bulk download costs few system calls.
const CHUNK: usize = 128 * 1024;

/// Copies client→server on a thread of its own and server→client here; a direction that ends shuts the other
/// side's writing, so half-closed exchanges (a request, then its answer) work.
pub fn both_ways(client: TcpStream, server: TcpStream) {
    let (Ok(client_in), Ok(server_out)) = (client.try_clone(), server.try_clone()) else {
        return;
    };
    let upstream = std::thread::Builder::new()
        .name("netproxy-up".into())
        .stack_size(64 * 1024)
        .spawn(move || one_way(client_in, server_out));
    one_way(server, client);
    if let Ok(handle) = upstream {
        let _ = handle.join();
    }
}

fn one_way(mut from: TcpStream, mut to: TcpStream) {
    let mut buffer = vec![0u8; CHUNK];
    loop {
        match from.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if to.write_all(&buffer[..n]).is_err() {
                    let _ = from.shutdown(Shutdown::Read);
                    break;
                }
            }
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}
