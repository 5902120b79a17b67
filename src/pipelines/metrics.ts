/**
 * The ingest pipeline's visible backlog and health. Plain counters, read through
 * `metrics()` of the running ingest; serve's `/metrics` shows them (src/gateway/metrics.ts).
 */
export interface IngestMetrics {
  /** Fleet events the pipeline took (every type, also those that make no rows). */
  eventsReceived: number;
  /** Rows (and capability upserts) received but not yet written: the backlog. */
  rowsQueued: number;
  /** Batches handed to DuckDB and settled. */
  batchesWritten: number;
  rowsWritten: number;
  /** Rows written per table. */
  rowsByTable: Record<string, number>;
  /** Failed write attempts (each is logged and retried). */
  failures: number;
  /** Retried writes. */
  retries: number;
  /**
   * Rows DuckDB refused even alone, after the retries: logged with serial and table at error
   * level. Zero unless a row is inherently unstorable (or the disk is gone for minutes).
   */
  rowsRejected: number;
  /** State documents with odd parts that were skipped (the document itself is still stored). */
  oddDocuments: number;
  /** Events that could not be turned into rows at all (logged). */
  unmappable: number;
  /** Rows of the last batch, and when (clock ms) it was written; 0 before the first. */
  lastBatchRows: number;
  lastWriteAt: number;
  /** The last write failed for lack of disk space: rows are held (the backlog) and retried. */
  diskFull: boolean;
  /** Rows held for disk space now (the backlog while `diskFull`, else 0). */
  rowsHeld: number;
  /** Rows not taken because the held ones reached their bound while the disk was full. */
  rowsDropped: number;
  /** Clock ms of the last rejected row (0: none). */
  lastRejectedAt: number;
}

export class IngestCounters {
  eventsReceived = 0;
  batchesWritten = 0;
  rowsWritten = 0;
  failures = 0;
  retries = 0;
  rowsRejected = 0;
  oddDocuments = 0;
  unmappable = 0;
  lastBatchRows = 0;
  lastWriteAt = 0;
  diskFull = false;
  rowsDropped = 0;
  lastRejectedAt = 0;
  readonly rowsByTable: Record<string, number> = {};

  wrote(table: string, rows: number): void {
    this.rowsWritten += rows;
    this.rowsByTable[table] = (this.rowsByTable[table] ?? 0) + rows;
  }

  snapshot(rowsQueued: number): IngestMetrics {
    return {
      eventsReceived: this.eventsReceived, rowsQueued, batchesWritten: this.batchesWritten, rowsWritten: this.rowsWritten,
      rowsByTable: { ...this.rowsByTable }, failures: this.failures, retries: this.retries, rowsRejected: this.rowsRejected,
      oddDocuments: this.oddDocuments, unmappable: this.unmappable, lastBatchRows: this.lastBatchRows, lastWriteAt: this.lastWriteAt,
      diskFull: this.diskFull, rowsHeld: this.diskFull ? rowsQueued : 0, rowsDropped: this.rowsDropped, lastRejectedAt: this.lastRejectedAt,
    };
  }
}
