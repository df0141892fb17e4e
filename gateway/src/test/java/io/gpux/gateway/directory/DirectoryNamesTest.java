package io.gpux.gateway.directory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpux.engine.replay.ScenarioReplayer;
import java.io.Writer;
import org.junit.jupiter.api.Test;

/**
 * Region and interconnect names: the engine keeps only their ids, so after a restart an id reads
 * {@code ?} until a machine is registered with its name again, and a registration again cannot add
 * names no machine has.
 */
class DirectoryNamesTest
{
    @Test
    void aRestartForgetsNamesThatRegistrationsAgainBringBack() throws Exception
    {
        final ScenarioReplayer replayer = new ScenarioReplayer(Writer.nullWriter());
        replayer.symbols().regions.define(Directory.nameId("eu"), "eu");
        replayer.symbols().interconnects.define(Directory.nameId("nvlink"), "nvlink");
        replayer.line("0 MARKET id=M1");
        replayer.line("0 ACCOUNT id=o roles=OWNER");
        replayer.line("0 MACHINE id=m1 owner=o market=M1 gpus=8 region=eu interconnect=nvlink");
        final Directory directory = new Directory();
        directory.load(replayer.engine());

        assertEquals("?", directory.nameOf(Directory.nameId("eu")), "the engine holds only the id");
        assertEquals("", directory.nameOf(0));

        directory.rememberName("eu", false);
        directory.rememberName("nvlink", false);
        assertEquals("eu", directory.nameOf(Directory.nameId("eu")), "the owner's agent registered again");
        assertEquals("nvlink", directory.nameOf(Directory.nameId("nvlink")));

        directory.rememberName("asia", false);
        assertEquals("?", directory.nameOf(Directory.nameId("asia")), "no machine has that region: not kept");
        directory.rememberName("asia", true);
        assertEquals("asia", directory.nameOf(Directory.nameId("asia")), "a new machine's region");
    }
}
