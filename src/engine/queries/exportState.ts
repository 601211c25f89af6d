import type { ExportStream, Reader, Tx } from '../ports';

/** The `export_state` table: the last seq of each stream written to its JSONL file. */

export function readExportedSeq(reader: Reader, stream: ExportStream): number {
  return reader.get<{ last_seq: number }>('SELECT last_seq FROM export_state WHERE stream = ?', [stream])?.last_seq ?? 0;
}

export function writeExportedSeq(tx: Tx, stream: ExportStream, seq: number): void {
  tx.run('UPDATE export_state SET last_seq = ? WHERE stream = ?', [seq, stream]);
}
