package io.gpux.gateway.directory;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The gateway's name tables; region ids must be the same in every process and after every restart. */
class DirectoryTest
{
    @Test
    void nameIdsAreAStableHashWrittenDownHere()
    {
        // 63 bits of FNV-1a over the UTF-8 bytes, computed outside Java: these numbers are in journals
        // and snapshots, so a change here is a change of the stored format
        assertEquals(616_499_501_334_090_383L, Directory.nameId("eu"));
        assertEquals(804_363_089_876_745_161L, Directory.nameId("us-east"));
        assertEquals(8_371_327_430_271_432_905L, Directory.nameId("nvlink"));
        assertEquals(775_207_407_765_167_617L, Directory.nameId("\u00e9"));
        assertEquals(Directory.nameId("eu"), Directory.nameId(new String("eu")));
    }

    @Test
    void noNameIsZeroAndEveryNameIsPositive()
    {
        assertEquals(0, Directory.nameId(null));
        assertEquals(0, Directory.nameId(""));
        final Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 10_000; i++)
        {
            final long id = Directory.nameId("region-" + i);
            assertTrue(id > 0, "region-" + i);
            seen.add(id);
        }
        assertEquals(10_000, seen.size(), "no collisions among 10,000 names");
        assertNotEquals(Directory.nameId("EU"), Directory.nameId("eu"), "names are case-sensitive");
    }

    @Test
    void idsAreReservedInOrderAndNamesAreUnique()
    {
        final Directory d = new Directory();
        final Directory.AccountEntry alice = d.newAccount("alice", 1);
        final Directory.AccountEntry bob = d.newAccount("bob", 2);
        assertEquals(alice.id() + 1, bob.id());
        assertNull(d.newAccount("alice", 4), "a taken name");
        d.forgetAccount(alice.id());
        assertNull(d.account("alice"));
        assertEquals(bob, d.account(bob.id()));

        final Directory.MarketEntry m = d.newMarket("X-1");
        assertNull(d.newMarket("X-1"));
        assertEquals(m, d.market("X-1"));
        assertNull(d.market((String)null));

        final boolean[] created = new boolean[1];
        final Directory.MachineEntry n1 = d.machineFor(bob.id(), "n1", m.id(), created);
        assertTrue(created[0]);
        assertEquals(n1, d.machineFor(bob.id(), "n1", m.id(), created));
        assertTrue(!created[0], "registering the same name again answers the same machine");
        assertNotEquals(n1.id(), d.machineFor(alice.id(), "n1", m.id(), created).id(), "names are per owner");
    }

    @Test
    void revokedKeysHaveNoAccount()
    {
        final Directory d = new Directory();
        final long key = d.newKeyId();
        assertEquals(0, d.keyAccount(key));
        d.keyAdded(key, 9);
        assertEquals(9, d.keyAccount(key));
        d.keyRevoked(key);
        assertEquals(0, d.keyAccount(key));
        d.keyRevoked(key);
        assertEquals(0, d.keyAccount(key), "revoking twice");
        assertTrue(d.newKeyId() > key);
    }
}
