/* Loads a musl addon through musl's own dynamic linker and finds its N-API entry point: what a musl Node would do first. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: musl-dlopen ADDON\n");
    return 2;
  }
  /* RTLD_NOW: every symbol the addon needs from libc must resolve here and now, as in Node. */
  void *addon = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (addon == NULL) {
    printf("dlopen failed: %s\n", dlerror());
    return 1;
  }
  if (dlsym(addon, "napi_register_module_v1") == NULL) {
    printf("loaded, but no napi_register_module_v1\n");
    return 1;
  }
  printf("loaded by musl's dynamic linker; napi_register_module_v1 found\n");
  return 0;
}
