# The Almanac demo node as a container image, built from the distribution (almanac-<version>.tar.gz):
#
#   mvn -B -q -pl dist -am package -DskipTests && docker build -t almanac:dev .
#
# docs/deployment.md describes the image, its ports and its configuration. DeploymentManifestsTest
# (samples) checks the ports, the health check and the configuration file below against the node's
# configuration and the Kubernetes manifests under deploy/k8s; dist's DistributionIT checks that the
# version and the entrypoint below are the tarball's.

# The project's version (the pom's): names the tarball dist/target/almanac-<version>.tar.gz.
ARG ALMANAC_VERSION=0.1.0-SNAPSHOT

# ADD unpacks the tarball (into almanac-<version>/); the image keeps only the unpacked tree.
FROM eclipse-temurin:17-jre AS dist
ARG ALMANAC_VERSION
ADD dist/target/almanac-${ALMANAC_VERSION}.tar.gz /opt/
RUN mv /opt/almanac-${ALMANAC_VERSION} /opt/almanac

FROM eclipse-temurin:17-jre

# curl for the HEALTHCHECK (the node answers its probes over HTTP)
RUN apt-get update \
    && apt-get install -y --no-install-recommends curl \
    && rm -rf /var/lib/apt/lists/*

# An unprivileged user; the one writable folder is /var/lib/almanac (the H2 file of the embedded
# node, the demo jobs' outbox and digests).
RUN groupadd --system --gid 10001 almanac \
    && useradd --system --uid 10001 --gid almanac --home-dir /var/lib/almanac --shell /usr/sbin/nologin almanac \
    && mkdir -p /var/lib/almanac/data \
    && chown -R almanac:almanac /var/lib/almanac

# The distribution: bin/almanac and bin/almanac-node, lib/ (every jar), conf/, docs/; the image's
# own configuration files beside conf/application.conf.
COPY --from=dist /opt/almanac /opt/almanac
COPY deploy/conf/ /opt/almanac/conf/

# The node's configuration file (-Dconfig.file): node.conf runs the embedded demo, or a cluster
# member with "demo --cluster ..."; the Kubernetes manifests set kubernetes.conf. JAVA_OPTS: more
# JVM options (heap: a share of the container's memory limit).
# bin on the PATH: "docker exec <container> almanac tasks" asks the node from inside.
ENV ALMANAC_CONFIG=/opt/almanac/conf/node.conf \
    JAVA_OPTS="-XX:MaxRAMPercentage=75" \
    PATH="/opt/almanac/bin:${PATH}"

USER 10001:10001
WORKDIR /var/lib/almanac
VOLUME /var/lib/almanac

# 8558: HTTP API, dashboard, metrics and health probes (almanac.http.port);
# 2552: Pekko cluster remoting (pekko.remote.artery.canonical.port, used in cluster mode).
EXPOSE 8558 2552

# Healthy once the node is ready to take work (GET /health/ready answers 200, 503 before).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD curl -fsS -o /dev/null http://127.0.0.1:8558/health/ready || exit 1

# The distribution's command line (almanac help), which reads JAVA_OPTS and ALMANAC_CONFIG: "demo"
# (the default) runs the node; any other command (tasks, queue, why, audit ...) runs the CLI.
# SIGTERM reaches the JVM (the script execs java), whose coordinated shutdown leaves the cluster and
# hands the node's tasks over.
ENTRYPOINT ["/opt/almanac/bin/almanac"]
CMD ["demo"]
