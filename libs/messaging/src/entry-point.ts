// Same shape as @ordering/http's EntryPoint, so relays and consumers go in a service's list.
export interface EntryPoint {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}
