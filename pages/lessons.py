"""Lessons page: a guided ten-minute lesson per method, one step at a time (predict, then see); in a class
round, every student predicts and the teacher sees the room's answers live (mvlab.ui.views.lessons_page)."""

from mvlab.ui.views import lessons_page

lessons_page.page()
