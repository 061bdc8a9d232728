// .local/stack.json: what the running local platform offers, written once everything is ready.
import fs from 'node:fs';
import path from 'node:path';
import { localStateDir } from './kafka-broker';

export interface DemoCustomer {
  cust_id: string;
  name: string;
  parent_cust_id: string | null;
}
export interface DemoUser {
  login: string;
  password: string;
  cust_id: string;
  roles: string[];
}
export interface DemoClient {
  client_id: string;
  client_secret?: string;
  cust_id: string;
  login: string;
  scopes: string[];
  redirect_uris: string[];
}
export interface DemoData {
  customers: DemoCustomer[];
  users: DemoUser[];
  clients: DemoClient[];
}

export interface StackFile {
  api_base_url: string;
  auth_url: string;
  /** The developer portal (sign in as an account admin); absent when it is not in this checkout. */
  portal_url?: string;
  kafka_brokers: string[];
  /** Zipkin's UI, where every request's trace can be read. */
  traces_url: string;
  services: Record<string, string>;
  logs_dir: string;
  demo: DemoData;
}

export const stackFilePath = (): string => localStateDir('stack.json');

export function writeStackFile(stack: StackFile): void {
  fs.mkdirSync(path.dirname(stackFilePath()), { recursive: true });
  const tmp = `${stackFilePath()}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(stack, null, 2)}\n`);
  fs.renameSync(tmp, stackFilePath());
}

export function readStackFile(): StackFile {
  const file = stackFilePath();
  if (!fs.existsSync(file)) throw new Error(`${file} does not exist: is the platform up (./dev up)?`);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as StackFile;
}
