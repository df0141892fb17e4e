package io.gpux.core.pipeline;

/**
 * A preallocated output entry: one encoded event record, or the completion marker of a command that
 * carried a correlation (not journaled, only published).
 */
final class EventSlot
{
    byte[] bytes = new byte[512];
    int length;
    boolean completion;
    long commandSequence;
    long correlation;
    /** For a command refused unjournaled: why (else null). */
    String refusal;

    void set(final byte[] src, final int n)
    {
        if (bytes.length < n)
        {
            bytes = new byte[Math.max(n, bytes.length * 2)];
        }
        System.arraycopy(src, 0, bytes, 0, n);
        length = n;
        completion = false;
        refusal = null;
    }

    void completion(final long commandSequence, final long correlation)
    {
        completion = true;
        length = 0;
        this.commandSequence = commandSequence;
        this.correlation = correlation;
        refusal = null;
    }

    void refusal(final long correlation, final String reason)
    {
        completion(0, correlation);
        refusal = reason;
    }
}
