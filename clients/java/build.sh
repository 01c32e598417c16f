#!/usr/bin/env bash
# Builds the Java client of the PCX broker (README.md here): generates the client from
# ../openapi.json with openapi-generator (the PyPI distribution's jar, in the tools venv),
# compiles it with the hand-written guarantees layer (src/main/java) and the example connector
# (examples/), packages build/pcx-client.jar and writes build/classpath.txt.
# Dependencies are Debian's jars in /usr/share/java: no Maven Central needed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TOOLS="${PCX_CLIENT_TOOLS:-$HERE/../../.tools/clients}"
GENERATOR="$TOOLS/bin/openapi-generator-cli"
DOCUMENT="$HERE/../openapi.json"
BUILD="$HERE/build"
OUT="$BUILD/generated"
TEMPLATES="$BUILD/templates"
CLASSES="$BUILD/classes"
JAVA_LIB=/usr/share/java
DEPS=(jackson-databind jackson-core jackson-annotations httpclient httpcore httpmime jsr305 jakarta-annotation-api)

die() { echo "build.sh: $*" >&2; exit 1; }

# A clone where `npm test` has not run yet has no tools venv: the generator is installed into it
# from PyPI, at the version the repository pins (../requirements-tools.txt).
if [ ! -x "$GENERATOR" ] && [ -z "${PCX_CLIENT_TOOLS:-}" ]; then
  PIN="$(grep -E '^openapi-generator-cli==' "$HERE/../requirements-tools.txt")"
  echo "build.sh: installing $PIN into $TOOLS"
  [ -x "$TOOLS/bin/python" ] || python3 -m venv "$TOOLS"
  "$TOOLS/bin/python" -m pip install --quiet --disable-pip-version-check "$PIN" || die "could not install $PIN from PyPI"
fi
[ -x "$GENERATOR" ] || die "no openapi-generator-cli at $GENERATOR (set PCX_CLIENT_TOOLS to the tools venv)"
JAR_OF_GENERATOR="$(ls "$TOOLS"/lib/python3*/site-packages/openapi_generator_cli/openapi-generator.jar 2>/dev/null | head -n1)"
[ -f "$JAR_OF_GENERATOR" ] || die "no openapi-generator.jar under $TOOLS"
CP=""
for dep in "${DEPS[@]}"; do
  [ -f "$JAVA_LIB/$dep.jar" ] || die "missing $JAVA_LIB/$dep.jar: apt-get install default-jdk-headless libjackson2-databind-java libhttpmime-java libjsr305-java libjakarta-annotation-api-java (README.md)"
  CP="${CP:+$CP:}$JAVA_LIB/$dep.jar"
done
VERSION="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["info"]["version"])' "$DOCUMENT")"

GENERATED_CLASSES="$BUILD/generated-classes"
STAMP="$BUILD/generated.stamp"
# The generated client is made again only when the document, the generator or this script
# changed (generation takes a minute or two); PCX_REGENERATE=1 forces it.
WANT="$(cat "$DOCUMENT" "$JAR_OF_GENERATOR" "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1)"
if [ "${PCX_REGENERATE:-0}" != 1 ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && [ -d "$GENERATED_CLASSES/org/pcx/client" ]; then
  echo "build.sh: the generated client is up to date (PCX_REGENERATE=1 makes it again)"
else
  rm -rf "$OUT" "$TEMPLATES" "$GENERATED_CLASSES" "$STAMP"
  mkdir -p "$OUT" "$TEMPLATES" "$GENERATED_CLASSES"

  # Templates: the native library's ApiClient and JSON without jackson-datatype-jsr310 (not in
  # Debian). Timestamps are typed String (--type-mappings below), so no java.time module is needed:
  # a timestamp stays the broker's RFC 3339 text, exactly as it was read.
  (cd "$TEMPLATES" && unzip -q -o -j "$JAR_OF_GENERATOR" 'Java/libraries/native/ApiClient.mustache' 'Java/libraries/native/JSON.mustache')
  for t in ApiClient JSON; do
    grep -q 'JavaTimeModule' "$TEMPLATES/$t.mustache" || die "$t.mustache no longer mentions JavaTimeModule: the generator changed, review the template edit"
    sed -i '/jsr310.JavaTimeModule;/d; /registerModule(new JavaTimeModule())/d; /registerModule(new RFC3339JavaTimeModule())/d; /addModule(new JavaTimeModule())/d; /addModule(new RFC3339JavaTimeModule())/d' "$TEMPLATES/$t.mustache"
    if grep -n 'JavaTimeModule' "$TEMPLATES/$t.mustache"; then
      die "$t.mustache still uses JavaTimeModule after the edit (lines above): the generator changed, update the sed in build.sh"
    fi
  done
  grep -q 'RFC3339JavaTimeModule' "$TEMPLATES/ApiClient.mustache" && die "ApiClient.mustache still refers to RFC3339JavaTimeModule"
  # The RFC 3339 java.time helpers need jsr310: not generated.
  printf '%s\n' src/main/java/org/pcx/client/RFC3339JavaTimeModule.java src/main/java/org/pcx/client/RFC3339InstantDeserializer.java > "$OUT/.openapi-generator-ignore"

  echo "build.sh: generating the client $VERSION from clients/openapi.json"
  "$GENERATOR" generate -i "$DOCUMENT" -g java --library native -t "$TEMPLATES" -o "$OUT" \
    --type-mappings=DateTime=String,date=String \
    --additional-properties=openApiNullable=false,useJakartaEe=true,hideGenerationTimestamp=true,invokerPackage=org.pcx.client,apiPackage=org.pcx.client.api,modelPackage=org.pcx.client.model,artifactVersion="$VERSION" \
    > "$BUILD/generate.log" 2>&1 || { tail -n 40 "$BUILD/generate.log" >&2; die "openapi-generator failed (build/generate.log)"; }

  if grep -rln 'JavaTimeModule' "$OUT/src/main/java"; then die "the generated code above still uses JavaTimeModule"; fi

  echo "build.sh: compiling the generated client"
  find "$OUT/src/main/java" -name '*.java' > "$BUILD/generated-sources.txt"
  javac -nowarn -encoding UTF-8 --release 17 -d "$GENERATED_CLASSES" -cp "$CP" @"$BUILD/generated-sources.txt" 2> "$BUILD/javac-generated.log" \
    || { tail -n 40 "$BUILD/javac-generated.log" >&2; die "the generated client did not compile"; }
  echo "$WANT" > "$STAMP"
fi

rm -rf "$CLASSES"
mkdir -p "$CLASSES"
cp -r "$GENERATED_CLASSES"/. "$CLASSES"/

echo "build.sh: compiling the guarantees layer and the example (-Xlint:all,-path -Werror)"
find "$HERE/src/main/java" "$HERE/examples" -name '*.java' > "$BUILD/layer-sources.txt"
javac -Xlint:all,-path -Werror -encoding UTF-8 --release 17 -d "$CLASSES" -cp "$CLASSES:$CP" @"$BUILD/layer-sources.txt"

printf 'Implementation-Title: PCX Java client\nImplementation-Version: %s\nSpecification-Version: %s\n' "$VERSION" "$VERSION" > "$BUILD/manifest.txt"
rm -f "$BUILD/pcx-client.jar"
jar --create --file "$BUILD/pcx-client.jar" --manifest "$BUILD/manifest.txt" -C "$CLASSES" .
echo "$BUILD/pcx-client.jar:$CP" > "$BUILD/classpath.txt"
echo "build.sh: built $BUILD/pcx-client.jar ($VERSION); classpath in $BUILD/classpath.txt"
