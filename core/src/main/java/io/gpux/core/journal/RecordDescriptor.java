package io.gpux.core.journal;

/**
 * The binary layout shared by command and event records in the journals (little-endian):
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                  CRC32C of bytes 4 .. end                     |
 *  +-------------------------------+---------------+---------------+
 *  |        format version         |  record kind  |     type      |
 *  +-------------------------------+---------------+---------------+
 *  |   sequence (command: journal position; event: engine seq)     |
 *  +---------------------------------------------------------------+
 *  |                   time, epoch milliseconds                    |
 *  +---------------------------------------------------------------+
 *  |       command sequence (events only; 0 for commands)          |
 *  +---------------------------------------------------------------+
 *  |      field mask: bit i set = field i present, in bit order    |
 *  +---------------------------------------------------------------+
 *  |  fields: zig-zag varints; strings: varint length + UTF-8 ...  |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * A field left at its default is not written, so a typical order is about 60 bytes. The CRC detects a
 * torn or garbled record.
 */
public final class RecordDescriptor
{
    public static final int CRC_OFFSET = 0;
    public static final int VERSION_OFFSET = 4;
    public static final int KIND_OFFSET = 6;
    public static final int TYPE_OFFSET = 7;
    public static final int SEQUENCE_OFFSET = 8;
    public static final int TIME_OFFSET = 16;
    public static final int COMMAND_SEQUENCE_OFFSET = 24;
    public static final int MASK_OFFSET = 32;
    public static final int FIELDS_OFFSET = 40;

    public static final short VERSION = 1;
    public static final byte KIND_COMMAND = 1;
    public static final byte KIND_EVENT = 2;
    /** Large enough for any command or event but a deep BOOK, which is cut to fit. */
    public static final int MAX_RECORD_LENGTH = 16 * 1024;

    private RecordDescriptor()
    {
    }
}
