package io.gpux.gateway.egress;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Cutting off a slow consumer keeps the stream whole: the frame in progress is finished, nothing after it is sent. */
class FramesTest
{
    /** Three frames of 3, 0 and 5 bytes: they end at 7, 11 and 20. */
    private static ByteBuf threeFrames()
    {
        final ByteBuf buf = Unpooled.buffer();
        buf.writeInt(3).writeBytes(new byte[3]);
        buf.writeInt(0);
        buf.writeInt(5).writeBytes(new byte[5]);
        return buf;
    }

    @Test
    void aBufferNotYetStartedIsDroppedWhole()
    {
        assertEquals(0, Frames.endOfFrameInProgress(threeFrames()));
    }

    @Test
    void aFrameInProgressIsFinishedAndTheRestDropped()
    {
        final ByteBuf buf = threeFrames();
        for (int sent = 1; sent <= 7; sent++)
        {
            buf.readerIndex(sent);
            assertEquals(7, Frames.endOfFrameInProgress(buf), "sent " + sent);
        }
        buf.readerIndex(8);
        assertEquals(11, Frames.endOfFrameInProgress(buf), "inside the empty frame's prefix");
        buf.readerIndex(12);
        assertEquals(20, Frames.endOfFrameInProgress(buf));
        buf.readerIndex(20);
        assertEquals(20, Frames.endOfFrameInProgress(buf), "all sent");
    }
}
