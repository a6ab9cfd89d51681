// Test worker: loads the same addon file as the main thread and writes into captures the main thread created.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { errLine, outLine, sharedLine } from './lines.mjs';

const binding = createRequire(import.meta.url)(workerData.bindingFile);

parentPort.on('message', ({ own, shared, worker, lines }) => {
  // A panic on this thread must come back as an error here and leave the addon usable.
  let panicCode;
  try {
    binding.panicForTest();
  } catch (error) {
    panicCode = error.code;
  }
  for (let i = 0; i < lines; i++) {
    const out = Buffer.from(outLine(worker, i));
    const cut = i % out.length;
    binding.write(own, 0, out.subarray(0, cut));
    binding.write(own, 0, out.subarray(cut));
    binding.write(own, 1, Buffer.from(errLine(worker, i)));
    binding.write(shared, 0, Buffer.from(sharedLine(worker, i)));
  }
  parentPort.postMessage({ done: true, panicCode });
});
