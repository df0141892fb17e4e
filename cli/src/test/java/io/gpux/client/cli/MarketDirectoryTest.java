package io.gpux.client.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpux.proto.v1.MarketInfo;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Symbols typed in any case, and the did-you-mean of a typo. */
class MarketDirectoryTest
{
    private static final MarketDirectory MARKETS = new MarketDirectory(List.of(market("H100-SXM-80G"),
        market("H100-PCIE-80G"), market("A100-SXM-40G"), market("A100-SXM-80G"), market("L40S-48G"), market("RTX4090-24G")));

    private static MarketInfo market(final String symbol)
    {
        return MarketInfo.newBuilder().setSymbol(symbol).build();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', nullValues = "-", value = {
        "h100-sxm-80g   | H100-SXM-80G",
        "H100-SXM-80G   | H100-SXM-80G",
        "l40s-48G       | L40S-48G",
        "H100-SXM-80    | H100-SXM-80",
    })
    void resolvesWithoutCase(final String typed, final String resolved)
    {
        assertEquals(resolved, MARKETS.resolve(typed));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "H100-SXM-8G    | H100-SXM-80G",
        "h100-sxm-80    | H100-SXM-80G",
        "H100-SMX-80G   | H100-SXM-80G",
        "H10-SXM-80G    | H100-SXM-80G",
        "H100_SXM_80G   | H100-SXM-80G",
        "H100-PCI-80G   | H100-PCIE-80G",
        "A100-SXM-60G   | A100-SXM-40G A100-SXM-80G",
        "L40-48G        | L40S-48G",
        "RTX-4090-24G   | RTX4090-24G",
        "4090           | RTX4090-24G",
        "A100           | A100-SXM-40G A100-SXM-80G",
        "H200-SXM-141G  | ''",
        "TPU            | ''",
    })
    void suggestsTheNearestSymbols(final String typo, final String expected)
    {
        assertEquals(expected.isEmpty() ? List.of() : List.of(expected.split(" ")), MARKETS.suggestions(typo));
    }

    @ParameterizedTest(name = "{0} -> {1} -> {2}")
    @CsvSource({"'',abc,3", "kitten,sitting,3", "abc,abc,0", "abc,acb,2", "H100,h100,1"})
    void editDistance(final String a, final String b, final int distance)
    {
        assertEquals(distance, MarketDirectory.editDistance(a, b));
    }

    @Test
    void anUnknownMarketListsTheMarkets()
    {
        assertEquals("unknown market \"h100\"; did you mean H100-PCIE-80G or H100-SXM-80G?; markets: A100-SXM-40G, "
            + "A100-SXM-80G, H100-PCIE-80G, H100-SXM-80G, L40S-48G, RTX4090-24G", MARKETS.unknownMarket("h100"));
        assertEquals("unknown market \"H100-SXM-8G\"; did you mean H100-SXM-80G?; markets: A100-SXM-40G, A100-SXM-80G, "
            + "H100-PCIE-80G, H100-SXM-80G, L40S-48G, RTX4090-24G", MARKETS.unknownMarket("H100-SXM-8G"));
        assertEquals("unknown market \"X\"; the exchange has no markets", new MarketDirectory(List.of()).unknownMarket("X"));
    }
}
