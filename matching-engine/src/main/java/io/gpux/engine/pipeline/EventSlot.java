package io.gpux.engine.pipeline;

/** A preallocated output ring entry: one encoded event record. */
final class EventSlot
{
    byte[] bytes = new byte[512];
    int length;

    void set(final byte[] src, final int n)
    {
        if (bytes.length < n)
        {
            bytes = new byte[Math.max(n, bytes.length * 2)];
        }
        System.arraycopy(src, 0, bytes, 0, n);
        length = n;
    }
}
