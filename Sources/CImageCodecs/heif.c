#include "CImageCodecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libheif/heif.h>

// libheif reports failures as heif_error values; nothing longjmps.

/// Opens the file and its primary image; on failure fills `message` and releases what was opened.
static ct_status open_primary(
    const uint8_t *data, size_t size, struct heif_context **context, struct heif_image_handle **handle, char *message,
    size_t message_size) {
    *context = heif_context_alloc();
    if (*context == NULL) return CT_NO_MEMORY;
    struct heif_error error = heif_context_read_from_memory_without_copy(*context, data, size, NULL);
    if (error.code == heif_error_Ok) error = heif_context_get_primary_image_handle(*context, handle);
    if (error.code != heif_error_Ok) {
        snprintf(message, message_size, "%s", error.message);
        heif_context_free(*context);
        return CT_INVALID;
    }
    return CT_OK;
}

ct_status ct_heif_size(const uint8_t *data, size_t size, int *width, int *height, char *message, size_t message_size) {
    struct heif_context *context;
    struct heif_image_handle *handle;
    ct_status status = open_primary(data, size, &context, &handle, message, message_size);
    if (status != CT_OK) return status;
    *width = heif_image_handle_get_width(handle);
    *height = heif_image_handle_get_height(handle);
    heif_image_handle_release(handle);
    heif_context_free(context);
    return CT_OK;
}

ct_status ct_heif_decode(
    const uint8_t *data, size_t size, long long max_pixels, ct_pixels *out, char *message, size_t message_size) {
    struct heif_context *context;
    struct heif_image_handle *handle;
    ct_status status = open_primary(data, size, &context, &handle, message, message_size);
    if (status != CT_OK) return status;
    int width = heif_image_handle_get_width(handle), height = heif_image_handle_get_height(handle);
    if ((long long)width * (long long)height > max_pixels) {
        snprintf(message, message_size, "%dx%d pixels", width, height);
        heif_image_handle_release(handle);
        heif_context_free(context);
        return CT_TOO_MANY_PIXELS;
    }
    // The rotation and mirroring the file declares are applied: the pixels come out as the photo is shown.
    struct heif_image *image = NULL;
    struct heif_error error = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, NULL);
    heif_image_handle_release(handle);
    if (error.code != heif_error_Ok) {
        snprintf(message, message_size, "%s", error.message);
        heif_context_free(context);
        return CT_INVALID;
    }
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    width = heif_image_get_width(image, heif_channel_interleaved);
    height = heif_image_get_height(image, heif_channel_interleaved);
    uint8_t *pixels = plane == NULL ? NULL : malloc((size_t)width * (size_t)height * 3);
    if (pixels == NULL) {
        heif_image_release(image);
        heif_context_free(context);
        return plane == NULL ? CT_INVALID : CT_NO_MEMORY;
    }
    for (int row = 0; row < height; row++) memcpy(pixels + (size_t)row * (size_t)width * 3, plane + (size_t)row * (size_t)stride, (size_t)width * 3);
    heif_image_release(image);
    heif_context_free(context);
    out->pixels = pixels;
    out->width = width;
    out->height = height;
    out->components = 3;
    return CT_OK;
}
