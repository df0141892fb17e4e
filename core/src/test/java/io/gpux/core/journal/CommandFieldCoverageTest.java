package io.gpux.core.journal;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A guard over {@link Command}: every declared instance field, set alone to a random value other than its
 * absent one, survives the journal codec, is copied by {@code copyFrom} and is set back by {@code reset};
 * a reset command's every field holds its absent value, so that the codec writes none of them. A field
 * added to the command but not to all of these fails here, by name.
 */
class CommandFieldCoverageTest
{
    private static final Random RANDOM = new Random(20261201);
    /** Set by {@code reset} to its arguments, not to an absent value: every command has a type and a time. */
    private static final Set<String> RESET_ARGUMENTS = Set.of("type", "timeMs");

    @Test
    void aResetCommandGivesNoField()
    {
        final CommandCodec codec = new CommandCodec();
        final Command c = new Command().reset(CommandType.BID, 1_000);
        assertEquals(RecordDescriptor.FIELDS_OFFSET, codec.encode(c), "a reset command's record has fields");
    }

    @TestFactory
    List<DynamicTest> everyCommandFieldSurvivesTheCodecCopyAndReset()
    {
        final List<DynamicTest> tests = new ArrayList<>();
        for (final Field f : Command.class.getDeclaredFields())
        {
            if (Modifier.isStatic(f.getModifiers()) || f.isSynthetic())
            {
                continue;
            }
            tests.add(DynamicTest.dynamicTest("Command." + f.getName(), () -> check(f)));
        }
        return tests;
    }

    private static void check(final Field f) throws Exception
    {
        final String name = "Command." + f.getName();
        final Command fresh = new Command().reset(CommandType.MARKET, 1_000);
        final Command c = new Command().reset(CommandType.MARKET, 1_000);
        final Object absent = f.get(fresh);
        final Object value = other(f.getType(), absent, name);
        f.set(c, value);

        final CommandCodec codec = new CommandCodec();
        final int length = codec.encode(c);
        final Command decoded = new Command();
        assertNull(codec.decode(length, decoded), name + ": the record does not decode");
        assertEquals(value, f.get(decoded), name + " does not survive the journal codec: give it a mask bit in CommandCodec");

        final Command copy = new Command().reset(CommandType.MARKET, 1_000);
        copy.copyFrom(c);
        assertEquals(value, f.get(copy), name + " is not copied by Command.copyFrom");

        c.reset(CommandType.MARKET, 1_000);
        assertEquals(absent, f.get(c), name + " is not set back by Command.reset");
        if (!RESET_ARGUMENTS.contains(f.getName()))
        {
            assertEquals(absent, f.get(new Command()), name + ": its initial value is not its absent value");
        }
    }

    /** A random value of the field's type other than {@code absent}. */
    private static Object other(final Class<?> type, final Object absent, final String name)
    {
        final Object value;
        if (type == long.class)
        {
            value = RANDOM.nextLong(1, Long.MAX_VALUE);
        }
        else if (type == int.class)
        {
            value = RANDOM.nextInt(1, Integer.MAX_VALUE);
        }
        else if (type == boolean.class)
        {
            value = true;
        }
        else if (type == String.class)
        {
            value = "N" + RANDOM.nextInt(1_000_000);
        }
        else if (type.isEnum())
        {
            final Object[] constants = type.getEnumConstants();
            value = constants[constants.length - 1];
        }
        else
        {
            return fail(name + ": a field of type " + type.getSimpleName() + " the guard does not know");
        }
        assertNotEquals(absent, value, name + ": the random value is its absent value");
        return value;
    }
}
