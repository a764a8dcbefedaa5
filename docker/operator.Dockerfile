# syntax=docker/dockerfile:1
# The Backstage operator image. Build from the repository root (bin/build-images does):
#   docker build -f docker/operator.Dockerfile -t backstage-operator:0.1.0 .
# The Helm chart helm/backstage-operator runs it: non-root, read-only root filesystem, /tmp an emptyDir.

ARG MAVEN_IMAGE=maven:3-eclipse-temurin-17
ARG JRE_IMAGE=eclipse-temurin:17-jre

FROM ${MAVEN_IMAGE} AS build
# The operator's entry point; bin/build-images passes the class it finds in operator/src/main/java.
ARG OPERATOR_MAIN_CLASS=dev.backstage.operator.main.OperatorMain
WORKDIR /src
COPY . .
# The Maven repository is a BuildKit cache: dependencies download once per builder, not once per build.
RUN --mount=type=cache,target=/root/.m2 \
    mvn -B -ntp -DskipTests package -pl operator -am
# Collect the operator jar and its runtime dependencies (operator/pom.xml copies them to target/lib with
# maven-dependency-plugin:copy-dependencies), and fail here, not at pod start, when the main class is absent.
# The entry point is a java @argfile: the launcher reads the class path and main class from it, no shell.
RUN set -eu; \
    if ! ls operator/target/lib/*.jar >/dev/null 2>&1; then \
      echo "operator/target/lib is empty: operator/pom.xml needs the copy-dependencies execution worker-runtime/pom.xml has" >&2; exit 1; \
    fi; \
    mkdir -p /out/lib; \
    cp operator/target/lib/*.jar /out/lib/; \
    jar=$(find operator/target -maxdepth 1 -name 'operator-*.jar' ! -name '*-sources.jar' ! -name '*-tests.jar' ! -name '*-javadoc.jar'); \
    cp "$jar" /out/operator.jar; \
    class="$(echo "$OPERATOR_MAIN_CLASS" | tr . /).class"; \
    if ! jar tf /out/operator.jar | grep -qx "$class"; then \
      echo "operator jar has no $OPERATOR_MAIN_CLASS: build with --build-arg OPERATOR_MAIN_CLASS=<main class>" >&2; exit 1; \
    fi; \
    printf -- '-cp\n/opt/backstage/operator.jar:/opt/backstage/lib/*\n%s\n' "$OPERATOR_MAIN_CLASS" > /out/operator.args

FROM ${JRE_IMAGE}
LABEL org.opencontainers.image.title="backstage-operator" \
      org.opencontainers.image.description="Backstage operator: worker pools from BackstageTopology and BackstageWorkerPool resources"
# uid/gid 65532 (the distroless "nonroot" id), numeric so that runAsNonRoot can verify it.
RUN groupadd --system --gid 65532 nonroot \
 && useradd --system --uid 65532 --gid 65532 --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin nonroot
WORKDIR /opt/backstage
# Dependencies first: they change less often than the operator jar, so their layer is reused.
COPY --from=build /out/lib/ /opt/backstage/lib/
COPY --from=build /out/operator.args /opt/backstage/operator.args
COPY --from=build /out/operator.jar /opt/backstage/operator.jar
USER 65532:65532
# /healthz, /readyz, /metrics on 8081; the validating webhook (HTTPS) on 8443.
EXPOSE 8081 8443
# MALLOC_ARENA_MAX: glibc's malloc arenas (up to 8 per core, each keeping its freed memory) held to two; the chart
# sets the same (mallocArenaMax).
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError" \
    MALLOC_ARENA_MAX=2
ENTRYPOINT ["java", "@/opt/backstage/operator.args"]
