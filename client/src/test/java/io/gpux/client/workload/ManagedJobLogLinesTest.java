package io.gpux.client.workload;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The lines a log tail adds to the one before it. */
class ManagedJobLogLinesTest
{
    @Test
    void onlyTheLinesAfterTheOverlapAreNew()
    {
        assertEquals(List.of("a", "b"), ManagedJob.newLines(List.of(), List.of("a", "b")));
        assertEquals(List.of("c"), ManagedJob.newLines(List.of("a", "b"), List.of("a", "b", "c")));
        assertEquals(List.of("d", "e"), ManagedJob.newLines(List.of("a", "b", "c"), List.of("b", "c", "d", "e")));
        assertEquals(List.of(), ManagedJob.newLines(List.of("a", "b"), List.of("a", "b")));
        assertEquals(List.of("x", "y"), ManagedJob.newLines(List.of("a", "b"), List.of("x", "y")), "nothing shared: all new");
    }
}
