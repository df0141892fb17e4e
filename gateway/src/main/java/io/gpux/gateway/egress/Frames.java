package io.gpux.gateway.egress;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;

import java.io.IOException;
import java.io.UncheckedIOException;

/** Writes frames: a 4-byte big-endian length, then the message (docs/protocol.md, "Framing"). */
public final class Frames
{
    private Frames()
    {
    }

    public static void write(final MessageLite message, final ByteBuf buf)
    {
        final int size = message.getSerializedSize();
        buf.ensureWritable(4 + size);
        buf.writeInt(size);
        final int at = buf.writerIndex();
        try
        {
            final CodedOutputStream out = CodedOutputStream.newInstance(buf.nioBuffer(at, size));
            message.writeTo(out);
            out.checkNoSpaceLeft();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        buf.writerIndex(at + size);
    }
}
