package io.gpux.engine.command;

/** Account roles as a bit set. */
public final class Roles
{
    public static final int RENTER = 1;
    public static final int OWNER = 2;
    public static final int MARKET_MAKER = 4;
    public static final int ADMIN = 8;

    private static final String[] NAMES = {"RENTER", "OWNER", "MARKET_MAKER", "ADMIN"};

    private Roles()
    {
    }

    public static boolean canBid(final int roles)
    {
        return (roles & (RENTER | MARKET_MAKER)) != 0;
    }

    public static boolean canAsk(final int roles)
    {
        return (roles & (OWNER | MARKET_MAKER)) != 0;
    }

    /** @return the role bit of a name, or 0 if it names no role. */
    public static int parse(final CharSequence name)
    {
        for (int i = 0; i < NAMES.length; i++)
        {
            if (NAMES[i].contentEquals(name))
            {
                return 1 << i;
            }
        }
        return 0;
    }

    public static String format(final int roles)
    {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < NAMES.length; i++)
        {
            if ((roles & (1 << i)) != 0)
            {
                if (sb.length() > 0)
                {
                    sb.append(',');
                }
                sb.append(NAMES[i]);
            }
        }
        return sb.toString();
    }
}
