// Types of @citeflow/elements: the <citeflow-answer> element and the result contract
// (answer.formatted and the other events, generated from citeflow's JSON Schemas).
import type { AnswerFormatted } from "./types/answer.formatted.v1";

export * from "./types/schemas";
export type * from "./types/answer.formatted.v1";

/** Fetches a gateway path (e.g. `/v1/answers/x`) for the element: a host's own proxy. */
export type CiteflowFetcher = (path: string, init: RequestInit) => Promise<Response>;

export interface CiteflowOpenDetail { kind: string; cold: boolean; ms: number; found: boolean }

/** `<citeflow-answer answer-id="..." gateway="..." api-key="...">`. */
export declare class CiteflowAnswer extends HTMLElement {
  /** The answer shown (attribute `answer-id`); setting it loads that answer. */
  answerId: string | null;
  /** A bearer credential (API key or token) sent to the gateway; or attribute `api-key`. */
  apiKey: string | null;
  /** Same as apiKey. */
  token: string | null;
  /** The gateway's base URL (attribute `gateway`; default: where the script came from). */
  readonly gateway: string;
  /** Replaces fetch(gateway + path): route the element's reads through the host. */
  fetcher: CiteflowFetcher | null;
  /** The formatted answer shown; set it to render one without fetching. */
  data: AnswerFormatted | null;
  /** "loading", "ready" or "error" (also the `data-state` attribute). */
  readonly state: string;
  /** Click-to-highlight timings of this element. */
  readonly timings: CiteflowOpenDetail[];
}

declare global {
  interface HTMLElementTagNameMap { "citeflow-answer": CiteflowAnswer }
  interface HTMLElementEventMap {
    "citeflow-ready": CustomEvent<{ answerId: string; firstRender: number }>;
    "citeflow-error": CustomEvent<{ message: string }>;
    "citeflow-open": CustomEvent<CiteflowOpenDetail>;
  }
}
