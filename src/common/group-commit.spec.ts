import { GroupCommit } from './group-commit.js';

/** A write that holds until released, recording what each statement carried. */
function heldWrites() {
  const statements: number[][] = [];
  const releases: Array<(error?: Error) => void> = [];
  const write = (items: number[]) =>
    new Promise<void>((resolve, reject) => {
      statements.push(items);
      releases.push((error) => (error ? reject(error) : resolve()));
    });
  return { statements, releases, write };
}

const settled = () => new Promise((r) => setImmediate(r));

describe('GroupCommit', () => {
  it('writes the first caller at once and everything that arrives meanwhile in one next statement', async () => {
    const { statements, releases, write } = heldWrites();
    const group = new GroupCommit(write);
    const first = group.add([1]);
    const second = group.add([2]);
    const third = group.add([3, 4]);
    await settled();
    expect(statements).toEqual([[1]]);

    let secondDone = false;
    void second.then(() => (secondDone = true));
    releases[0]();
    await first;
    await settled();
    expect(statements).toEqual([[1], [2, 3, 4]]);
    expect(secondDone).toBe(false); // settled only with the statement that carried it

    releases[1]();
    await Promise.all([second, third]);
  });

  it('fails every caller of a failed statement, and later callers get a statement of their own', async () => {
    const { statements, releases, write } = heldWrites();
    const group = new GroupCommit(write);
    const first = group.add([1]);
    const second = group.add([2]);
    releases[0]();
    await first;
    await settled();
    releases[1](new Error('connection lost'));
    await expect(second).rejects.toThrow('connection lost');

    const third = group.add([3]);
    await settled();
    expect(statements).toEqual([[1], [2], [3]]);
    releases[2]();
    await third;
  });

  it('writes nothing for no items', async () => {
    const { statements, write } = heldWrites();
    await new GroupCommit(write).add([]);
    expect(statements).toEqual([]);
  });
});
