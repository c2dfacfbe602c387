// The error a query raises for asking too much: more time buckets or heatmap
// cells than the caps in shared/contract/charts.ts allow (HTTP 400 QUERY_TOO_LARGE).

/** The request would produce more than the caps allow; the client should ask for less. */
export class QueryTooLargeError extends Error {
  readonly code = "QUERY_TOO_LARGE";
}
