#include "CImageCodecs.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

/// libjpeg's error manager, extended with the jump back into our wrapper and the status to report.
typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf escape;
    ct_status status;
    int max_scans;
    /// The decode's memory limit, and where the message of going over it is written.
    long long max_memory;
    char *message;
    size_t message_size;
} guarded_errors;

static void on_error(j_common_ptr cinfo) {
    guarded_errors *errors = (guarded_errors *)cinfo->err;
    // Only a decode sets a limit and a message for it (`ct_jpeg_decode`).
    if (errors->base.msg_code == JERR_NO_BACKING_STORE && errors->message != NULL) {
        // The whole-image arrays did not fit in max_memory_to_use, and libjpeg has no backing store to spill to. Said
        // here, where the image's fields are certain (after the longjmp the caller's copy of them need not be).
        j_decompress_ptr decompress = (j_decompress_ptr)cinfo;
        snprintf(
            errors->message, errors->message_size, "a %s JPEG of %ux%u pixels needs more than %lld bytes to decode",
            decompress->progressive_mode ? "progressive" : "multi-scan", decompress->image_width, decompress->image_height,
            errors->max_memory);
        errors->status = CT_TOO_MUCH_MEMORY;
    }
    longjmp(errors->escape, 1);
}

/// Warnings (a corrupt but recoverable stream) are not fatal in libjpeg; they are here: a photo that decodes only
/// with the library's guesses is not one to keep.
static void on_warning(j_common_ptr cinfo, int level) {
    if (level < 0) on_error(cinfo);
}

/// Called between passes: stops a progressive file with more scans than allowed (djpeg's -maxscans, libjpeg-turbo's
/// advice against files built to make decoding slow).
static void on_progress(j_common_ptr cinfo) {
    guarded_errors *errors = (guarded_errors *)cinfo->err;
    j_decompress_ptr decompress = (j_decompress_ptr)cinfo;
    if (decompress->input_scan_number > errors->max_scans) {
        errors->status = CT_TOO_MANY_SCANS;
        longjmp(errors->escape, 1);
    }
}

static void copy_message(j_common_ptr cinfo, char *message, size_t message_size) {
    if (message_size == 0) return;
    char buffer[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, buffer);
    snprintf(message, message_size, "%s", buffer);
}

static void install(struct jpeg_decompress_struct *cinfo, guarded_errors *errors, int max_scans) {
    memset(errors, 0, sizeof(*errors));
    cinfo->err = jpeg_std_error(&errors->base);
    errors->base.error_exit = on_error;
    errors->base.emit_message = on_warning;
    errors->status = CT_INVALID;
    errors->max_scans = max_scans;
}

ct_status ct_jpeg_size(const uint8_t *data, size_t size, int *width, int *height, char *message, size_t message_size) {
    struct jpeg_decompress_struct cinfo;
    guarded_errors errors;
    install(&cinfo, &errors, 0);
    if (setjmp(errors.escape)) {
        copy_message((j_common_ptr)&cinfo, message, message_size);
        jpeg_destroy_decompress(&cinfo);
        return CT_INVALID;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    *width = (int)cinfo.image_width;
    *height = (int)cinfo.image_height;
    jpeg_destroy_decompress(&cinfo);
    return CT_OK;
}

ct_status ct_jpeg_decode(
    const uint8_t *data, size_t size, int gray, int scale_denominator, long long max_pixels, int max_scans, long long max_memory,
    uint8_t *pixels, size_t capacity, int *width, int *height, char *message, size_t message_size) {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_progress_mgr progress;
    guarded_errors errors;
    install(&cinfo, &errors, max_scans);
    errors.max_memory = max_memory;
    errors.message = message;
    errors.message_size = message_size;
    if (setjmp(errors.escape)) {
        if (errors.status == CT_INVALID) copy_message((j_common_ptr)&cinfo, message, message_size);
        jpeg_destroy_decompress(&cinfo);
        return errors.status;
    }
    jpeg_create_decompress(&cinfo);
    // A baseline JPEG is decoded a band of rows at a time, but a progressive (or multi-scan) one keeps every block's
    // coefficients until its last scan: 2 bytes a sample, 6 a pixel for 4:4:4, whatever the scale it is read at.
    // libjpeg counts what it has allocated against this limit before it makes those arrays.
    cinfo.mem->max_memory_to_use = (long)max_memory;
    progress.progress_monitor = on_progress;
    cinfo.progress = &progress;
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    if ((long long)cinfo.image_width * (long long)cinfo.image_height > max_pixels) {
        snprintf(message, message_size, "%ux%u pixels", cinfo.image_width, cinfo.image_height);
        jpeg_destroy_decompress(&cinfo);
        return CT_TOO_MANY_PIXELS;
    }
    cinfo.out_color_space = gray ? JCS_GRAYSCALE : JCS_RGB;
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned int)scale_denominator;
    jpeg_start_decompress(&cinfo);
    size_t stride = (size_t)cinfo.output_width * (size_t)cinfo.output_components;
    if (pixels == NULL || capacity != stride * cinfo.output_height) {
        snprintf(
            message, message_size, "%ux%u pixels need %zu bytes, not %zu", cinfo.output_width, cinfo.output_height, stride * cinfo.output_height,
            capacity);
        jpeg_destroy_decompress(&cinfo);
        return CT_INVALID;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = pixels + stride * cinfo.output_scanline;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    *width = (int)cinfo.output_width;
    *height = (int)cinfo.output_height;
    jpeg_destroy_decompress(&cinfo);
    return CT_OK;
}

ct_status ct_jpeg_encode(
    const uint8_t *pixels, int width, int height, int components, int quality, uint8_t **out, size_t *out_size, char *message,
    size_t message_size) {
    struct jpeg_compress_struct cinfo;
    guarded_errors errors;
    unsigned char *volatile buffer = NULL;
    unsigned long length = 0;
    memset(&errors, 0, sizeof(errors));
    cinfo.err = jpeg_std_error(&errors.base);
    errors.base.error_exit = on_error;
    if (setjmp(errors.escape)) {
        copy_message((j_common_ptr)&cinfo, message, message_size);
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return CT_INVALID;
    }
    jpeg_create_compress(&cinfo);
    unsigned char *destination = NULL;
    jpeg_mem_dest(&cinfo, &destination, &length);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = components;
    cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    size_t stride = (size_t)width * (size_t)components;
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + stride * cinfo.next_scanline);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    buffer = destination;
    jpeg_destroy_compress(&cinfo);
    *out = buffer;
    *out_size = (size_t)length;
    return CT_OK;
}

void ct_free(void *pointer) { free(pointer); }
