/**
 * A real, small file system for disk-full tests: a tmpfs of a few MiB mounted on a temp folder.
 * Mounting needs root (CI runs as root here); elsewhere `mountSmallDisk` says why it cannot, and
 * the test skips with that reason in its output instead of pretending to have run.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface SmallDisk {
  readonly root: string;
  /** Writes a file until the disk is full (ENOSPC); returns its path, to remove to free the space. */
  fill(): string;
  unmount(): void;
}

export function mountSmallDisk(sizeMiB: number): SmallDisk | string {
  if (process.platform !== 'linux') return `mounting a small tmpfs needs Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'mounting a small tmpfs needs root; run the tests as root (CI does) to include disk-full cases';
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=0755`, 'tmpfs', root], { stdio: 'pipe' });
  } catch (error) {
    fs.rmSync(root, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return `mount -t tmpfs was refused here (${stderr || String(error)})`;
  }
  let fillers = 0;
  return {
    root,
    fill(): string {
      const filler = path.join(root, `filler-${++fillers}`);
      const chunk = Buffer.alloc(64 * 1024, 1);
      const fd = fs.openSync(filler, 'w');
      try {
        for (;;) fs.writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      } finally {
        fs.closeSync(fd);
      }
      // A tmpfs may still take a few bytes less than a chunk: fill those too.
      const small = fs.openSync(filler, 'a');
      try {
        for (;;) fs.writeSync(small, Buffer.alloc(1));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      } finally {
        fs.closeSync(small);
      }
      return filler;
    },
    unmount(): void {
      execFileSync('umount', ['-l', root], { stdio: 'ignore' });
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
