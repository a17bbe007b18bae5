// Preload for servers that listen on every interface (server-everything's HTTP modes): every
// listen(port) binds 127.0.0.1 instead, and the bound address is announced on stderr, so PORT=0
// gives a free port the test can read.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(...args) {
  const first = args[0];
  const isPort = typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first));
  if (isPort && (args.length === 1 || typeof args[1] === 'function'))
    args.splice(1, 0, '127.0.0.1');
  this.once('listening', () => {
    process.stderr.write(`LISTENING ${JSON.stringify(this.address())}\n`);
  });
  return listen.apply(this, args);
};
