package io.gpux.gateway.workload;

import io.gpux.proto.v1.AuditedLaunch;
import io.gpux.proto.v1.WorkloadAuditRecord;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WorkloadAuditJournalTest
{
    @TempDir
    Path dir;

    private static WorkloadAuditRecord launch(final long leaseId)
    {
        return WorkloadAuditRecord.newBuilder().setTimeMs(1000 + leaseId)
            .setLaunch(AuditedLaunch.newBuilder().setLeaseId(leaseId).setRenterAccount("alice")).build();
    }

    @Test
    void recordsComeBackInOrderAndATornTailIsCut() throws Exception
    {
        try (WorkloadAuditJournal journal = WorkloadAuditJournal.open(dir, r -> { }, line -> { }))
        {
            journal.append(launch(1));
            journal.append(launch(2));
        }
        final long whole = Files.size(dir.resolve(WorkloadAuditJournal.FILE));
        // a crash in the middle of the third append: its length and half its bytes
        final byte[] third = launch(3).toByteArray();
        final java.nio.ByteBuffer torn = java.nio.ByteBuffer.allocate(8 + third.length / 2)
            .putInt(third.length).putInt(0).put(third, 0, third.length / 2);
        Files.write(dir.resolve(WorkloadAuditJournal.FILE), torn.array(), StandardOpenOption.APPEND);

        final List<WorkloadAuditRecord> read = new ArrayList<>();
        final List<String> log = new ArrayList<>();
        try (WorkloadAuditJournal journal = WorkloadAuditJournal.open(dir, read::add, log::add))
        {
            assertEquals(List.of(launch(1), launch(2)), read);
            assertEquals(1, log.size(), log::toString);
            assertTrue(log.get(0).contains("cut a torn tail of " + torn.capacity() + " bytes at byte " + whole), log.get(0));
            assertEquals(whole, Files.size(dir.resolve(WorkloadAuditJournal.FILE)));
            journal.append(launch(4));
        }
        read.clear();
        WorkloadAuditJournal.open(dir, read::add, log::add).close();
        assertEquals(List.of(launch(1), launch(2), launch(4)), read, "appends go on after the cut");
    }

    @Test
    void aSealedValueOpensOnlyWithItsKeyLeaseAndName()
    {
        final byte[] master = new byte[32];
        master[0] = 1;
        final EnvSealer sealer = new EnvSealer(master);
        final byte[] sealed = sealer.seal(7, "TOKEN", "s3cret");
        assertEquals("s3cret", sealer.open(7, "TOKEN", sealed));
        assertNull(sealer.open(8, "TOKEN", sealed), "bound to its lease");
        assertNull(sealer.open(7, "OTHER", sealed), "bound to its name");
        final byte[] otherMaster = master.clone();
        otherMaster[0] = 2;
        assertNull(new EnvSealer(otherMaster).open(7, "TOKEN", sealed), "bound to the master key");
        assertNotEquals(new String(sealer.seal(7, "TOKEN", "s3cret")), new String(sealed), "a fresh nonce each time");
    }
}
