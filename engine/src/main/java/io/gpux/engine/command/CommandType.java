package io.gpux.engine.command;

/**
 * Every command the engine applies: the scenario verbs of docs/market-rules.md, section 15 (KEY: section
 * 13; COD_SESSION and RESTART: section 14). Ordinals are journaled: new types go at the end.
 */
public enum CommandType
{
    MARKET, CONFIG, ACCOUNT, DEPOSIT, MACHINE, HEARTBEAT, ASK, BID, CANCEL, REPLACE, MASS_CANCEL, RELEASE,
    HALT, RESUME, TICK, BOOK, KEY, COD_SESSION, RESTART;

    private static final CommandType[] VALUES = values();
    /** How many command types there are. */
    public static final int COUNT = VALUES.length;

    public static CommandType of(final int ordinal)
    {
        return VALUES[ordinal];
    }

    /** True for the two commands that place an order (their rejects carry no {@code command=}). */
    public boolean isOrderEntry()
    {
        return this == ASK || this == BID;
    }
}
