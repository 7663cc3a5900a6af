#include "CImageCodecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

// libpng's simplified API reports failures in the image's message (no longjmp reaches the caller).

/// Reads the header into `image`; on failure fills `message` and releases what was read.
static ct_status begin(const uint8_t *data, size_t size, png_image *image, char *message, size_t message_size) {
    memset(image, 0, sizeof(*image));
    image->version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(image, data, size)) {
        snprintf(message, message_size, "%s", image->message);
        png_image_free(image);
        return CT_INVALID;
    }
    return CT_OK;
}

ct_status ct_png_size(const uint8_t *data, size_t size, int *width, int *height, char *message, size_t message_size) {
    png_image image;
    ct_status status = begin(data, size, &image, message, message_size);
    if (status != CT_OK) return status;
    *width = (int)image.width;
    *height = (int)image.height;
    png_image_free(&image);
    return CT_OK;
}

ct_status ct_png_decode(
    const uint8_t *data, size_t size, int gray, long long max_pixels, uint8_t *pixels, size_t capacity, int *width, int *height,
    char *message, size_t message_size) {
    png_image image;
    ct_status status = begin(data, size, &image, message, message_size);
    if (status != CT_OK) return status;
    if ((long long)image.width * (long long)image.height > max_pixels) {
        snprintf(message, message_size, "%ux%u pixels", image.width, image.height);
        png_image_free(&image);
        return CT_TOO_MANY_PIXELS;
    }
    image.format = gray ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
    size_t needed = (size_t)image.width * (size_t)image.height * (gray ? 1 : 3);
    if (pixels == NULL || capacity != needed) {
        snprintf(message, message_size, "%ux%u pixels need %zu bytes, not %zu", image.width, image.height, needed, capacity);
        png_image_free(&image);
        return CT_INVALID;
    }
    // Transparent pixels are composited on white, as a viewer shows them.
    png_color white = {255, 255, 255};
    if (!png_image_finish_read(&image, &white, pixels, 0, NULL)) {
        snprintf(message, message_size, "%s", image.message);
        png_image_free(&image);
        return CT_INVALID;
    }
    *width = (int)image.width;
    *height = (int)image.height;
    return CT_OK;
}
