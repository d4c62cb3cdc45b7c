// HostClient: the one place that talks HTTP to a Host. Route groups hang off it
// (client.forms, client.resources, client.operations, client.artifacts, client.support);
// they share one connection: one keep-alive pool per origin, discovery done once.
import { ArtifactsApi } from './artifacts-api.js';
import { HostConnection, type HostClientOptions } from './connection.js';
import { FormsApi } from './forms-api.js';
import { OperationsApi } from './operations-api.js';
import { ResourcesApi } from './resources-api.js';
import { SupportApi } from './support-api.js';

export class HostClient {
  private readonly conn: HostConnection;
  readonly forms: FormsApi;
  readonly resources: ResourcesApi;
  readonly operations: OperationsApi;
  readonly artifacts: ArtifactsApi;
  readonly support: SupportApi;

  constructor(options: HostClientOptions) {
    this.conn = new HostConnection(options);
    this.operations = new OperationsApi(this.conn);
    this.forms = new FormsApi(this.conn);
    this.resources = new ResourcesApi(this.conn, this.operations);
    this.artifacts = new ArtifactsApi(this.conn, this.operations);
    this.support = new SupportApi(this.conn);
  }

  /** Runs discovery now (it also runs lazily before the first call). Returns the API root path. */
  discover(): Promise<string> {
    return this.conn.api();
  }

  async close(): Promise<void> {
    await this.conn.transport.close();
  }
}
