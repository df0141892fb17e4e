package io.gpux.gateway.offers;

/**
 * One machine with GPUs for rent, as copied out of the engine: plain numbers, safe to read on any
 * thread once published.
 *
 * @param machineId      the engine's machine id
 * @param marketId       the machine's market
 * @param ownerId        the owner's account id; never sent to a client (offers are anonymous)
 * @param gpus           the machine's GPUs
 * @param freeGpus       GPUs of the machine's open asks that no lease holds
 * @param price          the lowest price among its open asks, in ticks
 * @param reliabilityPpm its measured reliability, in parts per million (floor)
 * @param regionId       the region's name id (0: none)
 * @param interconnectId the interconnect's name id (0: none)
 * @param vramGb         GPU memory per GPU (0: not given)
 */
public record OfferRow(
    long machineId,
    long marketId,
    long ownerId,
    int gpus,
    int freeGpus,
    long price,
    long reliabilityPpm,
    long regionId,
    long interconnectId,
    long vramGb)
{
}
