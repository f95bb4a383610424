/* Placeholder until the viewer lands: links, and refuses to start. */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include "kerntop/ui.h"

int kt_ui_new(const struct kt_ui_env *env, struct kt_ui **out, char *err, size_t errlen)
{ *out = NULL; snprintf(err, errlen, "viewer not built yet; use -b"); return -ENOSYS; }
void kt_ui_free(struct kt_ui *ui) { (void)ui; }
int kt_ui_fd(const struct kt_ui *ui) { return 0; }
int kt_ui_input(struct kt_ui *ui) { return KT_UI_QUIT; }
void kt_ui_refresh(struct kt_ui *ui) { (void)ui; }
void kt_ui_resize(struct kt_ui *ui) { (void)ui; }
void kt_ui_status(struct kt_ui *ui, const char *msg) { (void)ui; }
double kt_ui_delay(const struct kt_ui *ui) { return 1.0; }
void kt_ui_emergency_restore(void) {}
