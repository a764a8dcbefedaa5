/**
 * A deterministic discrete-time simulator (100 ms ticks) that replays arrival traces through our decision
 * function and through KEDA + the HPA with their defaults. A benchmark, not a test: run
 * {@link dev.backstage.operator.scaling.sim.AutoscalingSimulation} (the command is in its Javadoc); surefire
 * does not pick it up.
 *
 * <p>The world is {@link dev.backstage.operator.scaling.sim.SimulatedCluster} (what is and is not modelled
 * is listed there); the controllers are {@link dev.backstage.operator.scaling.sim.BackstageAutoscaler} and
 * {@link dev.backstage.operator.scaling.sim.KedaHpaAutoscaler}.
 */
package dev.backstage.operator.scaling.sim;
