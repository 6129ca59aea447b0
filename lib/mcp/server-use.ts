// When each server of a pool was last used, and how many calls it has in flight: the daemon's idle
// reaper stops a server nobody has used for daemon.idleTimeout, and never one that is busy.

export class ServerUse {
  private readonly used = new Map<string, number>();
  private readonly busy = new Map<string, number>();

  /** counts the server as busy while `work` runs (lastUsed is then "now"), and as used when it ends */
  async during<T>(server: string, work: () => Promise<T>): Promise<T> {
    const idle = this.busyWith(server);
    try {
      return await work();
    } finally {
      idle();
    }
  }

  /** counts the server as busy (and used now) until the function it gives back is called */
  busyWith(server: string): () => void {
    this.busy.set(server, (this.busy.get(server) ?? 0) + 1);
    this.used.set(server, Date.now());
    return () => {
      this.busy.set(server, (this.busy.get(server) ?? 1) - 1);
      this.used.set(server, Date.now());
    };
  }

  /** ms timestamp of the last use (now, while a call is in flight); undefined if never used */
  lastUsed(server: string): number | undefined {
    return (this.busy.get(server) ?? 0) > 0 ? Date.now() : this.used.get(server);
  }
}
