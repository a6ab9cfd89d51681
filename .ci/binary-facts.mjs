// Reads what a built binary claims about itself: ELF machine, loader, needed libraries and glibc symbol versions, or a Mach-O CPU type.
import { readFileSync } from 'node:fs';

const ELF_MACHINES = { 0x3e: 'x86_64', 0xb7: 'aarch64' };
const MACHO_CPUS = { 0x01000007: 'x86_64', 0x0100000c: 'aarch64' };
const PT_INTERP = 3;
const SHT_DYNAMIC = 6;
const SHT_GNU_VERNEED = 0x6ffffffe;
const DT_NEEDED = 1;

/** A NUL-terminated string at `offset`. */
function cString(buf, offset) {
  const end = buf.indexOf(0, offset);
  return buf.toString('latin1', offset, end < 0 ? buf.length : end);
}

/** Compares dotted versions numerically: 2.17 < 2.3 is false. */
export function compareVersions(a, b) {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Only 64-bit little-endian ELF: every Linux target of this package is one. */
function elfFacts(buf) {
  if (buf[4] !== 2 || buf[5] !== 1) throw new Error('not a 64-bit little-endian ELF file');
  const type = { 2: 'executable', 3: 'shared object' }[buf.readUInt16LE(16)] ?? `type ${buf.readUInt16LE(16)}`;
  const machine = ELF_MACHINES[buf.readUInt16LE(18)] ?? `machine 0x${buf.readUInt16LE(18).toString(16)}`;
  const phoff = Number(buf.readBigUInt64LE(32));
  const shoff = Number(buf.readBigUInt64LE(40));
  const [phentsize, phnum, shentsize, shnum] = [54, 56, 58, 60].map((at) => buf.readUInt16LE(at));

  let interpreter = null;
  for (let i = 0; i < phnum; i++) {
    const ph = phoff + i * phentsize;
    if (buf.readUInt32LE(ph) === PT_INTERP) interpreter = cString(buf, Number(buf.readBigUInt64LE(ph + 8)));
  }

  const sections = [];
  for (let i = 0; i < shnum; i++) {
    const sh = shoff + i * shentsize;
    sections.push({
      type: buf.readUInt32LE(sh + 4),
      offset: Number(buf.readBigUInt64LE(sh + 24)),
      size: Number(buf.readBigUInt64LE(sh + 32)),
      link: buf.readUInt32LE(sh + 40),
      info: buf.readUInt32LE(sh + 44),
    });
  }
  // Both the dynamic section and the version needs name their strings in the section their sh_link points at.
  const needed = [];
  const versions = new Set();
  for (const section of sections) {
    const strings = sections[section.link]?.offset;
    if (section.type === SHT_DYNAMIC) {
      for (let at = section.offset; at + 16 <= section.offset + section.size; at += 16) {
        const tag = buf.readBigInt64LE(at);
        if (tag === 0n) break;
        if (tag === BigInt(DT_NEEDED)) needed.push(cString(buf, strings + Number(buf.readBigUInt64LE(at + 8))));
      }
    } else if (section.type === SHT_GNU_VERNEED) {
      // Elf64_Verneed entries (sh_info of them), each with a chain of Elf64_Vernaux naming one version.
      let need = section.offset;
      for (let n = 0; n < section.info; n++) {
        const count = buf.readUInt16LE(need + 2);
        let aux = need + buf.readUInt32LE(need + 8);
        for (let k = 0; k < count; k++) {
          versions.add(cString(buf, strings + buf.readUInt32LE(aux + 8)));
          aux += buf.readUInt32LE(aux + 12);
        }
        const next = buf.readUInt32LE(need + 12);
        if (next === 0) break;
        need += next;
      }
    }
  }
  const glibc = [...versions].filter((v) => v.startsWith('GLIBC_2')).map((v) => v.slice('GLIBC_'.length));
  const maxGlibc = glibc.sort(compareVersions).at(-1) ?? null;
  return { format: 'ELF', type, machine, interpreter, needed, maxGlibc };
}

function machoFacts(buf) {
  const cpu = buf.readUInt32LE(4);
  const type = { 2: 'executable', 6: 'shared object', 8: 'shared object' }[buf.readUInt32LE(12)] ?? `filetype ${buf.readUInt32LE(12)}`;
  return { format: 'Mach-O', type, machine: MACHO_CPUS[cpu] ?? `cpu 0x${cpu.toString(16)}`, interpreter: null, needed: [], maxGlibc: null };
}

/** The facts of the binary at `file`. */
export function binaryFacts(file) {
  const buf = readFileSync(file);
  if (buf.readUInt32BE(0) === 0x7f454c46) return elfFacts(buf);
  if (buf.readUInt32LE(0) === 0xfeedfacf) return machoFacts(buf);
  throw new Error(`${file}: neither ELF nor 64-bit Mach-O`);
}
