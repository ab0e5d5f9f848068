// The failover watch's reading of CLUSTER NODES (runtime/failover-watch.ts): which master serves which
// slots, so a promotion or a moved range changes the signature and a failing master alone does not.
import { expect, test } from "bun:test";
import { slotOwners } from "../../runtime/failover-watch";

const before = [
  "a1 127.0.0.1:7000@17000 myself,master - 0 0 1 connected 0-5460",
  "b2 127.0.0.1:7001@17001 master - 0 0 2 connected 5461-10922",
  "c3 127.0.0.1:7002@17002 master - 0 0 3 connected 10923-16383",
  "d4 127.0.0.1:7003@17003 slave a1 0 0 1 connected",
  "e5 127.0.0.1:7004@17004 slave b2 0 0 2 connected",
  "",
].join("\n");

test("slot owners: masters with slots, sorted; replicas and their lines do not count", () => {
  expect(slotOwners(before)).toBe("a1:0-5460 b2:5461-10922 c3:10923-16383");
  // the same cluster listed in another order by another node
  expect(slotOwners(before.split("\n").reverse().join("\n"))).toBe(slotOwners(before));
});

test("a master marked failing keeps its slots (no change yet); its replica's promotion changes the owners", () => {
  const failing = before.replace("b2 127.0.0.1:7001@17001 master", "b2 127.0.0.1:7001@17001 master,fail");
  expect(slotOwners(failing)).toBe(slotOwners(before));
  const promoted = failing
    .replace("b2 127.0.0.1:7001@17001 master,fail - 0 0 2 connected 5461-10922", "b2 127.0.0.1:7001@17001 master,fail - 0 0 2 disconnected")
    .replace("e5 127.0.0.1:7004@17004 slave b2 0 0 2 connected", "e5 127.0.0.1:7004@17004 master - 0 0 4 connected 5461-10922");
  expect(slotOwners(promoted)).toBe("a1:0-5460 c3:10923-16383 e5:5461-10922");
});

test("a slot being migrated is not a change of owner until it moves", () => {
  const migrating = before.replace("0-5460", "0-5460 [5460->-b2]");
  expect(slotOwners(migrating)).toBe(slotOwners(before));
});
