"""Class poll: randomized response with the class's own phones (layout in app/views/poll/)."""

from app.views import poll as view

view.render(view.sidebar())
