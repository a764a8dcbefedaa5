package dev.backstage.operator.scaling.sim;

/** A controller that watches the simulated cluster and sets the Deployment's replicas. */
interface Autoscaler {
    /** Called every simulation tick; acts only when one of its loops is due. */
    void tick(long nowMs, SimulatedCluster cluster);
}
