// Counting semaphore that bounds how many handlers run at once (per host and per actor).
// The fast path is synchronous: no promise is made while a slot is free.

export class Semaphore {
  private active = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(readonly limit: number) {}

  /** Returns true when a slot was taken at once; otherwise await wait() which hands over a slot. */
  tryAcquire(): boolean {
    if (this.active < this.limit) {
      this.active++;
      return true;
    }
    return false;
  }

  wait(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async acquire(): Promise<void> {
    if (!this.tryAcquire()) await this.wait();
  }

  release(): void {
    const next = this.waiters.shift();
    // The slot passes straight to the next waiter, so `active` stays the same.
    if (next) next();
    else this.active--;
  }

  get inUse(): number {
    return this.active;
  }
}
