/** Where the benchmark data lives and how to reach it. */
export interface StoreTarget {
  kind: 'embedded' | 'custom' | 'aws';
  /** Endpoint URL; undefined means AWS's regional endpoint. */
  endpointUrl?: string;
  region: string;
  bucket: string;
  /** Explicit credentials (the embedded server's); undefined means the standard AWS credential chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Path-style addressing: needed by servers on an IP or without wildcard DNS. */
  forcePathStyle: boolean;
  /** Server software and version where known. */
  server: string | null;
}
