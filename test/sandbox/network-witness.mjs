// Host-side witnesses of network escapes for the sandbox scripts: a TCP listener and a UDP socket on loopback that
// count what reaches them, and the commands that try to reach each.
import { createServer } from 'node:net';
import { createSocket } from 'node:dgram';

export async function networkWitness() {
  let tcpConnections = 0;
  let udpPackets = 0;
  const tcp = createServer((s) => {
    tcpConnections++;
    s.end('hello\n');
  });
  await new Promise((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  const udp = createSocket('udp4');
  udp.on('message', () => udpPackets++);
  await new Promise((resolve) => udp.bind(0, '127.0.0.1', resolve));
  return {
    commands: {
      tcp: `exec 3<>/dev/tcp/127.0.0.1/${tcp.address().port} && head -c 5 <&3 && echo connected`,
      udp: `for i in 1 2 3; do echo x > /dev/udp/127.0.0.1/${udp.address().port}; done && echo sent`,
    },
    /** What reached the host; then both close. */
    async end() {
      // window-ok: a packet or connection the command made is in the kernel's queues before its result returns;
      // this only lets the event loop take what is queued.
      await new Promise((resolve) => setTimeout(resolve, 50));
      tcp.close();
      udp.close();
      return { tcpConnections, udpPackets };
    },
  };
}
