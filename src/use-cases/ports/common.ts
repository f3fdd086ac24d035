/**
 * Ports every use case may need: the clock, the id source and a page of a list.
 */
export interface Clock {
  now(): Date;
}

export interface IdSource {
  uuid(): string;
}

export interface Page {
  readonly page: number;
  readonly limit: number;
}
