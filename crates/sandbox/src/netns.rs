//! A network namespace the referee makes for one bot that must speak TCP (the Connect Four
//! interface): nothing in it but its loopback, brought up, and whatever the referee
//! opens there (its listener). The bot's sandbox is started from a thread inside it, so
//! the bot's connection reaches the referee's listener, and nothing else: it can neither
//! listen where anyone outside could connect nor reach any address of the machine or
//! beyond, whatever it binds or connects to.
//!
//! Namespaces belong to threads: each is entered by a thread of its own made for the
//! purpose, which ends with its work, so no thread of the referee's runtimes ever
//! changes namespace.

use std::io;
use std::os::fd::{AsFd, OwnedFd};

use netlink_packet_core::{NLM_F_ACK, NLM_F_REQUEST, NetlinkHeader, NetlinkMessage, NetlinkPayload};
use netlink_packet_route::RouteNetlinkMessage;
use netlink_packet_route::link::{LinkFlags, LinkMessage};
use netlink_sys::{Socket, SocketAddr, protocols::NETLINK_ROUTE};
use rustix::thread::{LinkNameSpaceType, UnshareFlags, move_into_link_name_space};

/// A network namespace of its own, kept while this lives (and while any process or socket
/// is in it).
#[derive(Debug)]
pub struct NetNamespace {
    fd: OwnedFd,
}

impl NetNamespace {
    /// Makes a new network namespace with its loopback up. Fails without the privilege
    /// (CAP_SYS_ADMIN).
    pub fn create() -> io::Result<NetNamespace> {
        on_a_thread(|| {
            crate::sys::unshare(UnshareFlags::NEWNET).map_err(io::Error::from)?;
            loopback_up()?;
            let fd = std::fs::File::open("/proc/thread-self/ns/net")?;
            Ok(NetNamespace { fd: fd.into() })
        })
    }

    /// Runs `work` on a thread of its own inside the namespace: what it opens (a
    /// listener) belongs to the namespace, what it starts (a process) lives there.
    pub fn run<T: Send>(&self, work: impl FnOnce() -> io::Result<T> + Send) -> io::Result<T> {
        let fd = self.fd.as_fd();
        on_a_thread(move || {
            move_into_link_name_space(fd, Some(LinkNameSpaceType::Network)).map_err(io::Error::from)?;
            work()
        })
    }
}

/// Runs `work` on a new thread and waits for it.
fn on_a_thread<T: Send>(work: impl FnOnce() -> io::Result<T> + Send) -> io::Result<T> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("arbiter-netns".to_string())
            .spawn_scoped(scope, work)?
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("a namespace thread panicked")))
    })
}

/// Brings the loopback (interface 1 in a new namespace) up, by netlink: `RTM_NEWLINK` with
/// the flag `IFF_UP`, and waits for the kernel's acknowledgement.
fn loopback_up() -> io::Result<()> {
    let mut socket = Socket::new(NETLINK_ROUTE)?;
    socket.bind_auto()?;
    socket.connect(&SocketAddr::new(0, 0))?;
    let mut link = LinkMessage::default();
    link.header.index = 1;
    link.header.flags = LinkFlags::Up;
    link.header.change_mask = LinkFlags::Up;
    let mut header = NetlinkHeader::default();
    header.flags = NLM_F_REQUEST | NLM_F_ACK;
    let mut message = NetlinkMessage::new(header, NetlinkPayload::from(RouteNetlinkMessage::SetLink(link)));
    message.finalize();
    let mut buffer = vec![0u8; message.buffer_len()];
    message.serialize(&mut buffer);
    socket.send(&buffer, 0)?;
    let mut answer = vec![0u8; 4096];
    let read = socket.recv(&mut &mut answer[..], 0)?;
    let reply = NetlinkMessage::<RouteNetlinkMessage>::deserialize(&answer[..read])
        .map_err(|err| io::Error::new(io::ErrorKind::InvalidData, format!("the kernel's answer: {err}")))?;
    match reply.payload {
        NetlinkPayload::Error(error) => match error.code {
            None => Ok(()),
            Some(code) => Err(io::Error::from_raw_os_error(-code.get())),
        },
        other => Err(io::Error::new(io::ErrorKind::InvalidData, format!("an unexpected answer: {other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};

    /// Inside a namespace of its own, a listener on the loopback is reached from inside,
    /// and the host's listener is not (there is nothing but the loopback).
    #[test]
    fn a_namespace_reaches_its_own_listener_only() {
        let host = TcpListener::bind("127.0.0.1:0").expect("a host listener");
        let host_addr = host.local_addr().expect("its address");
        let ns = NetNamespace::create().expect("a namespace (the tests run as root)");
        let listener = ns.run(|| TcpListener::bind("127.0.0.1:0")).expect("a listener inside");
        let addr = listener.local_addr().expect("its address");
        let (inside, outside) = ns
            .run(|| {
                let mut stream = TcpStream::connect(addr)?;
                stream.write_all(b"hi")?;
                Ok((Ok::<_, io::Error>(stream), TcpStream::connect(host_addr)))
            })
            .expect("the thread inside ran");
        let (mut accepted, _) = listener.accept().expect("the connection from inside");
        let mut got = [0u8; 2];
        accepted.read_exact(&mut got).expect("read");
        assert_eq!(&got, b"hi");
        drop(inside);
        let refused = outside.expect_err("the host's listener is out of reach");
        assert_eq!(refused.kind(), io::ErrorKind::ConnectionRefused, "{refused}");
    }
}
