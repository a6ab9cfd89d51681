// Build script: lets napi-build set the linker flags a Node addon needs on each platform.
fn main() {
    napi_build::setup();
}
