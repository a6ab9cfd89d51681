// A slowloris client: opens <count> connections to 127.0.0.1:<port>, sends each a request line and half a header,
// then never sends more and never closes its side. Prints one JSON line of counts each second and once every
// connection was attempted ({"attempted": true}); runs until killed.
// Usage: node slowloris.mjs <port> <count>
import { connect } from 'node:net';

const [port, count] = process.argv.slice(2).map(Number);
const stats = { opened: 0, connected: 0, errors: 0, answered408: 0, closed: 0, attempted: false };
const sockets = [];

function open() {
  return new Promise((resolve) => {
    stats.opened += 1;
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    sockets.push(socket);
    socket.on('connect', () => {
      stats.connected += 1;
      socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
      resolve();
    });
    socket.on('data', (data) => {
      if (data.toString().startsWith('HTTP/1.1 408')) stats.answered408 += 1;
    });
    // The server's FIN: this client keeps its own side open, as a slowloris does.
    socket.on('end', () => {});
    socket.on('error', () => {
      stats.errors += 1;
      resolve();
    });
    socket.on('close', () => (stats.closed += 1));
  });
}

const print = () => process.stdout.write(`${JSON.stringify(stats)}\n`);
setInterval(print, 1000);
for (let i = 0; i < count; i += 200) {
  await Promise.all(Array.from({ length: Math.min(200, count - i) }, open));
}
stats.attempted = true;
print();
